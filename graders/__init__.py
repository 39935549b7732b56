"""Pure graders: counterfactual scoring, causal-gym and VC deal math."""

from graders.blas import pin_kernels

pin_kernels()
