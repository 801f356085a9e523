"""numba kernels: plain arrays in, plain arrays out. No pandas, no Qt, no Python objects."""
