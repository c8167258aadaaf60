"""The San Juan determinisation, decided where a viewer's view is decided (``replay.san_juan.view``):
this name stays for the engine's ``hidden`` hook."""

from replay.san_juan.view import determinise

__all__ = ["determinise"]
