"""lumir: a multi-level IR compiler that runs PyTorch matrix products as fused cuBLASLt calls."""

__version__ = "0.1.0"
