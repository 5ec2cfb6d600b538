"""Measuring a consolidator: scenarios with ground truth, checks, a runner and reports (`nanodream eval`)."""
