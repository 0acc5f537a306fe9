"""Draws two figures with the Python package and matplotlib (Agg backend, no display needed):

  pendulum.png  the Cartesian pendulum (examples/pendulum.dirac) with rods of 1 m and 2 m:
                the angle against time, and the rod tension -2 l mu (mu: the multiplier)
  dc_motor.png  the DC motor lifting a pendulum (examples/interconnect/dc_motor): the
                armature current, the load's angle oscillating about its static value, and the
                motor's power in the two ports of the gyrator (they cancel: it does no work)

Usage: python3 examples/python/pendulum_and_motor.py [OUTPUT_DIR]   (default: the current
directory)
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import dirac  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def pendulum_figure(path):
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    for l in (1.0, 2.0):
        r = dirac.load(os.path.join(EXAMPLES, "pendulum.dirac"), l=l).simulate(t_end=10, every=10)
        top.plot(r.t, r["angle"], label="l = %g m" % l)
        bottom.plot(r.t, -2 * l * r["mu.rod"], label="l = %g m" % l)
        print("pendulum l = %g: max |x^2 + y^2 - l^2| = %.1e, energy error %.1e" % (
            l, abs(r["x"] ** 2 + r["y"] ** 2 - l * l).max(), r.summary["energy_error_max"]))
    top.set_ylabel("angle (rad)")
    bottom.set_ylabel("rod tension (N)")
    bottom.set_xlabel("t (s)")
    top.legend()
    top.set_title("Cartesian pendulum, midpoint, dt = 1e-3")
    fig.savefig(path, dpi=100)
    plt.close(fig)


def motor_figure(path):
    model = dirac.load(os.path.join(EXAMPLES, "interconnect", "dc_motor", "dc_motor.dirac"))
    r = model.simulate(t_end=2, every=20)
    fig, axes = plt.subplots(3, 1, sharex=True, figsize=(8, 8))
    axes[0].plot(r.t, r["current"])
    axes[0].set_ylabel("current (A)")
    axes[1].plot(r.t, r["load.phi"], label="load angle")
    axes[1].plot(r.t, r["phi_static"], "--", label="static angle")
    axes[1].set_ylabel("angle (rad)")
    axes[1].legend()
    v_arm, w = r["armature.q'"], r["rotor.theta'"]
    axes[2].plot(r.t, r["F.motor.armature.q"] * v_arm, label="electrical port")
    axes[2].plot(r.t, r["F.motor.rotor.theta"] * w, label="mechanical port")
    axes[2].plot(r.t, r["P.motor"], label="sum")
    axes[2].set_ylabel("power (W)")
    axes[2].set_xlabel("t (s)")
    axes[2].legend()
    axes[0].set_title("DC motor lifting a pendulum (midpoint, dt = 1e-4)")
    print("dc_motor: max |P.motor| = %.1e W" % abs(r["P.motor"]).max())
    fig.savefig(path, dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    pendulum_figure(os.path.join(out, "pendulum.png"))
    motor_figure(os.path.join(out, "dc_motor.png"))
    print("figures in", os.path.join(out, "pendulum.png"), "and", os.path.join(out, "dc_motor.png"))
