"""Analytical models of TCP."""
from tcplab.models.pftk import pftk_approx, pftk_full

__all__ = ["pftk_approx", "pftk_full"]
