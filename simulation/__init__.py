"""Discrete-event simulation of online schedulers (see the simulator issue)."""

__all__: list[str] = []
