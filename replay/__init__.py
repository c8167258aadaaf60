"""Rules engines of San Juan and Puerto Rico, and replay of their logs."""

from replay import native as _native

_native.activate()
