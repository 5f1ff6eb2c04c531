"""Bringing a user's own RTL project in: filelists and source sets, the Candidate they make, ``hh init``."""
