"""The located parser's former home; it lives in `lumir.parsing`, below every layer."""

from lumir.parsing import LocatedParser

__all__ = ["LocatedParser"]
