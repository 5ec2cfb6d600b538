"""The run itself: history in, one session over a staged copy, guards, and the apply transaction."""
