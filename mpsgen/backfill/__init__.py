"""What a change adds to a checkout that lacks it: the helpers, macros and kernels an older (or forked)
PyTorch checkout does not have, derived from their siblings in the same checkout, one module per backfill."""
