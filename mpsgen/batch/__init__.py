"""`mpsgen migrate --all`: every frontier family planned and checked in parallel, each written as
one commit on its own branch from HEAD without touching the work tree, HEAD or the index.

    outcome.py   one family's result, and the summary table (text, json, markdown)
    plan_one.py  the worker: plan one family, run its numeric check, keep the new texts
    pr_text.py   the commit message, a PR description in PyTorch's style
    branches.py  git plumbing: a commit on refs/heads/<prefix><family> from a private index
"""
