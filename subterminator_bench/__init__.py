"""The benchmark: the practice gauntlet run by a pilot and judged by the practice server.

Not part of the installed package: it lives with the source checkout, beside the
tests, with the scripted loopback model that plays a model through the real SDK
wire format. ``subterminator bench`` loads it from here.
"""
