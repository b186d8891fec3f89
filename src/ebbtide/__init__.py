"""ebbtide: long-term memory for AI agents that remembers why."""

from .clock import ManualClock, system_clock
from .config import Config
from .errors import EbbtideError, NotFound, StoreUnavailable, ValidationError
from .memory import Memory, open_memory
from .model import Edge, Link, Node, RecallHit, RecallResult, Why

__all__ = [
    "Config",
    "EbbtideError",
    "Edge",
    "Link",
    "ManualClock",
    "Memory",
    "Node",
    "NotFound",
    "RecallHit",
    "RecallResult",
    "StoreUnavailable",
    "ValidationError",
    "Why",
    "open_memory",
    "system_clock",
]

__version__ = "0.1.0"
