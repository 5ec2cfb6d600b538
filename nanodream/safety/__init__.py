"""Checks on what a session wrote: guards, the secret scanner and the injection tripwires."""
