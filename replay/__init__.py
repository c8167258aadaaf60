"""The games' rules engines (each game a package, found through ``replay.registry``) and replay of their
logs."""

from replay import native as _native

_native.activate()
