"""The Puerto Rico determinisation, decided where a viewer's view is decided
(``replay.puerto_rico.view``): this name stays for the engine's ``hidden`` hook."""

from replay.puerto_rico.view import determinise

__all__ = ["determinise"]
