"""The distribution stubs the random kind writes a Metal sampler for: the table alone, which check's frontier
reads without plan/random_route.py's readers."""

# stub -> (kernel name, the parameter names after the output, the CPU op the check compares with)
SAMPLERS = {"uniform_stub": ("uniform", ("from", "to", "gen"), "uniform_"),
            "normal_stub": ("normal", ("mean", "std", "gen"), "normal_"),
            "exponential_stub": ("exponential", ("lambda", "gen"), "exponential_"),
            "bernoulli_scalar_stub": ("bernoulli_scalar", ("p", "gen"), "bernoulli_"),
            "bernoulli_tensor_stub": ("bernoulli_tensor", ("p_", "gen"), "bernoulli_"),
            "random_stub": ("random", ("gen",), "random_"),
            "random_from_to_stub": ("random_from_to", ("range", "base", "gen"), "random_"),
            "random_full_64_bits_range_stub": ("random_full_64", ("gen",), "random_")}
