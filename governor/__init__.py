"""Governor: replay, import and study San Juan and Puerto Rico game logs."""

__version__ = "0.1.0"
