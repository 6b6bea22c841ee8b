"""Reading the module's replies in the Redis tests (test_compat.py, test_cf_width.py):
error_of(r, *cmd), the error text of a command's reply or None if it succeeded, and
pairs(reply), a flat [name, value, ...] INFO-style reply as a dict with str names.

    from replies import error_of, pairs
    check("must be" in error_of(r, "CF.RESERVE", "k", 0), "...")
    pairs(r.execute_command("CF.INFO", "k"))["Number of filters"]
"""
import redis


def error_of(r, *cmd):
    """The error text of the reply to cmd, or None if it succeeded."""
    try:
        r.execute_command(*cmd)
    except redis.ResponseError as e:
        return str(e)
    return None


def pairs(reply):
    return dict(zip([k.decode() for k in reply[::2]], reply[1::2]))
