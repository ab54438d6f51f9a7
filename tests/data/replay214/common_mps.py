# Hand-written for tests/test_replay_214.py: in torch 2.14.1's torch/testing/_internal/common_mps.py, the
# lines that name asinh, acosh, atanh, conj_physical, logical_not, sigmoid_backward or sigmoid, in the
# file's order and nesting.  All six sit in mps_ops_modifier's SUPPORTED_COMPLEX_OPS (the other keys are
# elided as ...); no xfail or skip table names any of them, and no line names sigmoid_backward.  (This
# header quotes no op name: the test reads every line that quotes one.)
import torch

if torch.backends.mps.is_available():

    def mps_ops_modifier(ops, device_type="mps", xfail_exclusion=None, sparse=False):
        SUPPORTED_COMPLEX_OPS = {
            "__radd__",
            ...,
            "asinh",
            ...,
            "conj_physical",
            ...,
            "sigmoid",
            ...,
            "acosh",
            ...,
            "atanh",
            ...,
            "logical_not",
            ...,
        }
        return ops
