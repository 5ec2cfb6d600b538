"""nanodream: give an AI agent a sleep that consolidates its history into versioned memory."""

__version__ = "0.1.0"
