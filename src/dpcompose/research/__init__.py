"""Tools for researchers and students, outside the composition pipeline: divergences between
given distributions and the blog's lemmas (divergences), concentration bounds on the privacy
loss (concentration), and a labelled Monte Carlo estimate of random allocation's privacy
profile (allocation_estimate: not a certified bound). Nothing in the pipeline imports them.
"""
