"""The no-Mac compile check: every .mm and .metal file a change writes, compiled by a real front end.

diagnostic.py is the record both compilers return and the rule that makes one a finding (new against
the file's HEAD version); objcxx.py compiles operations/*.mm (libclang, Objective-C++ -fsyntax-only)
against the checkout's headers and the ATen headers torchgen generates from its yaml; metal.py compiles
kernels/*.metal under the Metal emulation with the checkout's own c10/metal headers.
"""
