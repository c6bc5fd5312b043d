"""A fixed clock for Planet Venus and Planet 2.0 under the differential test.

Python 2.7 imports this module at start-up when its folder is on PYTHONPATH.
FEEDMERGE_DIFFERENTIAL_NOW (seconds since the epoch, UTC) becomes what
time.time(), time.gmtime(), time.localtime() and datetime's now() say, so the
old programs see the same "now" as `feedmerge --now`. threading and Queue are
imported first: their timeouts keep the real clock, so no wait can hang.
"""
import os

NOW = os.environ.get("FEEDMERGE_DIFFERENTIAL_NOW")

if NOW:
    import threading  # noqa: F401  (binds the real clock for its timeouts)
    import Queue  # noqa: F401
    import time
    import datetime

    _now = float(NOW)
    _gmtime = time.gmtime
    _localtime = time.localtime

    def fixed_time():
        return _now

    def fixed_gmtime(seconds=None):
        return _gmtime(_now if seconds is None else seconds)

    def fixed_localtime(seconds=None):
        return _localtime(_now if seconds is None else seconds)

    time.time = fixed_time
    time.gmtime = fixed_gmtime
    time.localtime = fixed_localtime

    class FixedDateTime(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            if tz is None:
                return cls.fromtimestamp(_now)
            return tz.fromutc(cls.utcfromtimestamp(_now).replace(tzinfo=tz))

        @classmethod
        def utcnow(cls):
            return cls.utcfromtimestamp(_now)

        @classmethod
        def today(cls):
            return cls.fromtimestamp(_now)

    datetime.datetime = FixedDateTime
