"""AIMD congestion control as a tcplab plug-in, written in Python.

With its defaults (a = 1, b = 0.5) it is NewReno as tcplab's built-in ``newreno`` runs it
(ns-2.35's arithmetic): runs with ``cc = "python:examples/plugins/aimd.py:AIMD"`` give the
same tables as ``cc = "newreno"``, bit for bit, only slower (docs/kentridge.md, "Python
plug-ins"). Change a and b through the flow's ``cc_params``:

    [[flows]]
    src = "s0"
    dst = "d0"
    cc = "python:examples/plugins/aimd.py:AIMD"
    cc_params = { a = 2, b = 0.7 }
"""
import math


class AIMD:
    # The backplane's recovery after dupthresh duplicate ACKs: "newreno", "reno" or "none".
    recovery = "newreno"

    def __init__(self, a=1.0, b=0.5):
        if not a > 0:
            raise ValueError(f"a = {a}: must be positive")
        if not 0 < b < 1:
            raise ValueError(f"b = {b}: must be in (0, 1)")
        self.a = float(a)
        self.b = float(b)

    def init(self, st):
        """Connection start."""
        st.cwnd = st.init_cwnd
        st.ssthresh = st.init_ssthresh

    def on_ack(self, st, ack):
        """A new cumulative ACK outside recovery: +1 per ACK in slow start, +a/cwnd after."""
        if st.cwnd < st.ssthresh:
            st.cwnd += 1.0
        else:
            st.cwnd += self.a / st.cwnd

    def on_congestion(self, st, signal):
        """Loss (or ECN): ssthresh = max(floor(b * window), 2); cwnd = b * window, or 1
        after a timeout."""
        w = min(st.cwnd, st.rwnd)
        st.ssthresh = max(math.floor(math.floor(w) * self.b), 2.0)
        st.cwnd = 1.0 if signal == "timeout" else w * self.b
        st.recovery_base = st.cwnd

    def on_recovery_exit(self, st):
        """Fast recovery ends: back to the window without the inflation, then the
        recovery-ending ACK opens it like any new ACK (ns-2.35)."""
        st.cwnd = st.recovery_base
        if st.cwnd < st.ssthresh:
            st.cwnd += 1.0
        else:
            st.cwnd += self.a / st.cwnd


class Failing(AIMD):
    """For tests of a failing plug-in: raises on the first loss."""

    def on_congestion(self, st, signal):
        raise RuntimeError(f"no idea what to do after {signal}")
