"""Simulation helpers shared by the gates and PPA: cocotb runs, stimulus generation, testbench text."""
