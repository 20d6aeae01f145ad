#!/usr/bin/env python3
"""Generate the synthetic WatchMe Firebase export sample used by areawatch's tests and demos.

Usage:
    python3 generate.py [OUT_DIR]        (OUT_DIR defaults to the folder of this script)

Writes, byte-identical on every run (fixed seed, Python 3 standard library only):
    watchme-export-2018-07-31.json        whole-database export at the as-of 2018-07-31T23:59:59Z
    watchme-export-2018-08-01-edits.json  the same database one day later (edits + new posts)
    manifest.json                         what was generated and what a correct ingest reports
    README.md                             description and expected counts (from the manifest)

Everything is synthetic: no real people, places are real towns of Calderdale (West Yorkshire).
Determinism: only random.Random(SEED).random() is used (the one generator method Python promises
to keep stable), coordinates are built with + - * / and round() only and stored as whole
microdegrees, so the output does not depend on the platform's math library. The haversine
distances in the manifest's point queries do use math.sin/cos/asin, so the generator checks that
no post lies within MIN_MARGIN_M of a query radius.
"""

import datetime
import hashlib
import json
import math
import os
import random
import sys

SEED = 20180731
AS_OF = datetime.datetime(2018, 7, 31, 23, 59, 59, tzinfo=datetime.timezone.utc)
EDIT_DAY = datetime.datetime(2018, 8, 1, tzinfo=datetime.timezone.utc)
FILE_1 = "watchme-export-2018-07-31.json"
FILE_2 = "watchme-export-2018-08-01-edits.json"
N_USERS = 120
N_EDITS = (14, 14, 12)   # description only, policeArrived only, both
N_NEW_POSTS = 25
RADIUS_M = 1000.0
EARTH_R = 6371008.8
THRESHOLDS = (5, 10)
MIN_MARGIN_M = 0.01
M_PER_DEG_LAT = 111250.0   # at about 53.7 N
M_PER_DEG_LON = 65900.0

# name, centre lat, centre lon, spread (m, ~1 sigma), posts per year window
# (oldest = (T-3y, T-2y], previous = (T-2y, T-1y], current = (T-1y, T]).
HOTSPOTS = [
    ("Halifax town centre", 53.7248, -1.8658, 350, (110, 140, 200)),   # rising
    ("Halifax, Pellon", 53.7270, -1.8830, 300, (85, 80, 45)),          # falling
    ("Brighouse", 53.7034, -1.7826, 350, (80, 90, 55)),                # falling
    ("Elland", 53.6850, -1.8390, 300, (50, 55, 57)),                   # about level
    ("Sowerby Bridge", 53.7085, -1.9070, 300, (40, 45, 80)),           # rising
    ("Todmorden", 53.7136, -2.0970, 350, (45, 50, 30)),                # falling
    ("Hebden Bridge", 53.7418, -2.0110, 300, (25, 30, 48)),            # rising
    ("Ripponden", 53.6720, -1.9440, 250, (4, 6, 7)),                   # medium
    ("Hipperholme", 53.7255, -1.8120, 250, (6, 4, 3)),                 # safe
]
BACKGROUND = ((53.665, 53.760), (-2.100, -1.760), (20, 20, 20))  # lat range, lon range, per window
POLICE_ARRIVED_P = (0.35, 0.30, 0.20)
DESCRIPTIONS = [
    "Followed home from the bus stop",
    "Group shouting and throwing bottles",
    "Car window smashed",
    "Someone tried to grab my bag",
    "Man acting aggressively",
    "Fight outside the pub",
    "Felt unsafe walking through the park",
    "Bike stolen",
    "Harassed on the station platform",
    "Loud argument, sounded violent",
    "Drunk driver swerving",
    "Suspicious person trying car doors",
    "He said \"give me your phone\"",
    "Two men at the cash machine,\nwatching everyone",
    "Near the café on the corner",
    "Stranger followed me \U0001F6B6 please call",
]
EDIT_TEXTS = [
    "Police came, all fine now",
    "Reported to police",
    "Update: they left",
    "Happened again tonight",
    "Thanks everyone, I'm safe",
]
PUSH_CHARS = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"
UID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def epoch(dt):
    return int(dt.timestamp())


def minus_years(dt, n):
    try:
        return dt.replace(year=dt.year - n)
    except ValueError:  # 29 February -> 28 February
        return dt.replace(year=dt.year - n, day=28)


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


T = epoch(AS_OF)
WINDOWS = [(epoch(minus_years(AS_OF, k + 1)), epoch(minus_years(AS_OF, k))) for k in (2, 1, 0)]


class Gen:
    """Every random choice goes through random.Random.random()."""

    def __init__(self, seed):
        self.r = random.Random(seed)

    def random(self):
        return self.r.random()

    def below(self, n):
        return min(int(self.random() * n), n - 1)

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def weighted(self, items, weights):
        x = self.random() * sum(weights)
        acc = 0.0
        for item, w in zip(items, weights):
            acc += w
            if x < acc:
                return item
        return items[-1]

    def normal(self):
        """Approximately standard normal (Irwin-Hall, 12 uniforms), cut at +-3."""
        while True:
            z = sum(self.random() for _ in range(12)) - 6.0
            if -3.0 <= z <= 3.0:
                return z

    def push_id(self, ms):
        """Firebase childByAutoId(): 8 chars of creation time in ms, then 12 random chars."""
        head = []
        for _ in range(8):
            head.append(PUSH_CHARS[ms % 64])
            ms //= 64
        return "".join(reversed(head)) + "".join(self.choice(PUSH_CHARS) for _ in range(12))

    def uid(self):
        return "".join(self.choice(UID_CHARS) for _ in range(28))

    def point(self, lat0, lon0, spread_m):
        dy = self.normal() * spread_m
        dx = self.normal() * spread_m
        return (round((lat0 + dy / M_PER_DEG_LAT) * 1e6) / 1e6,
                round((lon0 + dx / M_PER_DEG_LON) * 1e6) / 1e6)

    def time_in(self, lo, hi):
        """A whole second in (lo, hi), never on a window bound; more posts in the evening/night."""
        hour_w = [3, 3, 2, 1, 0.5, 0.5, 0.5, 1, 1.5, 1.5, 1.5, 1.5,
                  1.5, 1.5, 1.5, 2, 2, 2, 2.5, 3, 3, 3, 3, 3]
        while True:
            t = lo + 1 + self.below(hi - lo - 1)
            if self.random() * 3 < hour_w[(t % 86400) // 3600]:
                return t


# ---------------------------------------------------------------- validation (SPEC §2.4, §3)

def _num(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v.strip())
        except ValueError:
            return None
    return None


def _time(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return math.floor(v / 1000) if abs(v) >= 1e11 else math.floor(v)
    if isinstance(v, str):
        s = v.strip()
        if s.endswith("Z"):
            s = s[:-1] + "+00:00"
        try:
            dt = datetime.datetime.fromisoformat(s)
        except ValueError:
            return None
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=datetime.timezone.utc)
        return math.floor(dt.timestamp())
    return None


def classify(post):
    """(reject reason, None) or (None, (time, lat, lon)) for one member of `posts`."""
    if not isinstance(post, dict):
        return "malformed_record", None
    lat, lon = post.get("latitude"), post.get("longitude")
    if lat is None or lon is None or lat == "" or lon == "":
        return "missing_coordinates", None
    la, lo = _num(lat), _num(lon)
    if la is None or lo is None or not math.isfinite(la) or not math.isfinite(lo) \
            or not -90 <= la <= 90 or not -180 <= lo <= 180:
        return "invalid_coordinates", None
    if la == 0 and lo == 0:
        return "null_island", None
    if "timestamp" not in post or post["timestamp"] == "":
        return "missing_time", None
    t = _time(post["timestamp"])
    if t is None:
        return "invalid_time", None
    return None, (t, la, lo)


def window_of(t, as_of):
    if t > as_of:
        return "future"
    if t > epoch(minus_years(_dt(as_of), 1)):
        return "current"
    if t > epoch(minus_years(_dt(as_of), 2)):
        return "previous"
    return "older"


def _dt(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc)


def haversine(lat1, lon1, lat2, lon2):
    p1, p2 = lat1 * math.pi / 180, lat2 * math.pi / 180
    dp, dl = (lat2 - lat1) * math.pi / 180, (lon2 - lon1) * math.pi / 180
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_R * math.asin(math.sqrt(a))


# ---------------------------------------------------------------- the database

def make_users(g):
    users, homes, activity = [], {}, {}
    names = [h[0] for h in HOTSPOTS]
    weights = [sum(h[4]) for h in HOTSPOTS]
    seen = set()
    for i in range(1, N_USERS + 1):
        uid = g.uid()
        while uid in seen or uid.isdigit():
            uid = g.uid()
        seen.add(uid)
        users.append((uid, {
            "name": "Test User %03d" % i,
            "email": "user%d@example.org" % i,
            "profileImageUrl": "" if g.random() < 0.15 else
            "https://example.org/avatars/user%d.png" % i,
        }))
        homes[uid] = g.weighted(names, weights)
        activity[uid] = 0.2 + 5.0 * g.random() ** 3
    return users, homes, activity


def make_friends(g, uids, homes):
    """users-friends: accepted pairs are "added" both ways; an open request is "requested" on the
    requester's side and "pending" on the recipient's side."""
    friends = {}
    for u in uids:
        same = [v for v in uids if v != u and homes[v] == homes[u]]
        others = [v for v in uids if v != u and homes[v] != homes[u]]
        for _ in range(1 + g.below(2)):
            pool = same if same and g.random() < 0.7 else others
            v = g.choice(pool)
            if v in friends.get(u, {}):
                continue
            if g.random() < 0.8:
                friends.setdefault(u, {})[v] = "added"
                friends.setdefault(v, {})[u] = "added"
            else:
                friends.setdefault(u, {})[v] = "requested"
                friends.setdefault(v, {})[u] = "pending"
    return friends


def pick_user(g, uids, homes, activity, hotspot):
    local = [u for u in uids if homes[u] == hotspot]
    pool = local if local and (hotspot is None or g.random() < 0.75) else uids
    return g.weighted(pool, [activity[u] for u in pool])


def new_post(g, user, t, lat, lon, window_index, ms=None):
    post = {
        "user": user,
        "timestamp": t,
        "latitude": lat,
        "longitude": lon,
        "description": "" if g.random() < 0.7 else g.choice(DESCRIPTIONS),
        "policeArrived": g.random() < POLICE_ARRIVED_P[window_index],
    }
    pid = g.push_id(ms if ms is not None else t * 1000 + g.below(1000))
    return pid, post


def build_db(posts, users, friends, follow):
    """The whole database: fan-out copies are made from `posts`, so an edit reaches every copy."""
    users_posts, timeline = {}, {}
    for pid, post in posts.items():
        if not isinstance(post, dict) or post.get("user") not in users:
            continue
        author = post["user"]
        users_posts.setdefault(author, {})[pid] = dict(post)
        for friend, status in friends.get(author, {}).items():
            if status == "added":
                timeline.setdefault(friend, {})[pid] = dict(post)
    return {
        "posts": posts,
        "users": users,
        "users-posts": users_posts,
        "timeline": timeline,
        "users-friends": friends,
        "users-follow": follow,
    }


def dump(db):
    return (json.dumps(db, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def generate():
    g = Gen(SEED)
    user_list, homes, activity = make_users(g)
    users = dict(user_list)
    uids = [u for u, _ in user_list]
    friends = make_friends(g, uids, homes)

    posts = {}
    ordinary = []          # push ids of the plain, valid posts (candidates for edits)

    def add(pid, post):
        assert pid not in posts
        posts[pid] = post

    # Ordinary posts, window by window, hotspot by hotspot.
    for w, (lo, hi) in enumerate(WINDOWS):
        for name, lat0, lon0, spread, per_window in HOTSPOTS:
            for _ in range(per_window[w]):
                lat, lon = g.point(lat0, lon0, spread)
                pid, post = new_post(g, pick_user(g, uids, homes, activity, name), g.time_in(lo, hi), lat, lon, w)
                add(pid, post)
                ordinary.append(pid)
        (la0, la1), (lo0, lo1), per_window = BACKGROUND
        for _ in range(per_window[w]):
            lat = round((la0 + (la1 - la0) * g.random()) * 1e6) / 1e6
            lon = round((lo0 + (lo1 - lo0) * g.random()) * 1e6) / 1e6
            pid, post = new_post(g, pick_user(g, uids, homes, activity, None), g.time_in(lo, hi), lat, lon, w)
            add(pid, post)
            ordinary.append(pid)

    # Special posts: (what it exercises, expected outcome, post or non-object value).
    specials = []
    cur_lo, cur_hi = WINDOWS[2]

    def special(exercises, expected, mutate, at=None, centre=HOTSPOTS[0], created_ms=None):
        lat, lon = g.point(centre[1], centre[2], centre[3])
        t = at if at is not None else g.time_in(cur_lo, cur_hi)
        pid, post = new_post(g, pick_user(g, uids, homes, activity, centre[0]), t, lat, lon, 2,
                             ms=created_ms)
        value = mutate(post)
        add(pid, value)
        specials.append({"push_id": pid, "exercises": exercises, "expected": expected})

    def with_(**kw):
        def m(post):
            for k, v in kw.items():
                if v is DELETE:
                    del post[k]
                else:
                    post[k] = v
            return post
        return m

    for i in range(4):
        zero = 0.0 if i == 3 else 0
        special("location permission missing: latitude and longitude exactly %r" % zero,
                "null_island", with_(latitude=zero, longitude=zero))
    special("(0, 0) and no timestamp: the first reason in SPEC order wins",
            "null_island", with_(latitude=0, longitude=0, timestamp=DELETE))
    special("no latitude member", "missing_coordinates", with_(latitude=DELETE))
    special("no longitude member", "missing_coordinates", with_(longitude=DELETE))
    special("no latitude and timestamp \"yesterday\": the first reason in SPEC order wins",
            "missing_coordinates", with_(latitude=DELETE, timestamp="yesterday"))
    special("latitude 91.5 (out of range)", "invalid_coordinates", with_(latitude=91.5))
    special("longitude is a non-numeric string", "invalid_coordinates", with_(longitude="unknown"))
    special("no timestamp member", "missing_time", with_(timestamp=DELETE))
    special("timestamp \"yesterday\"", "invalid_time", with_(timestamp="yesterday"))
    special("post value is a string, not an object", "malformed_record", lambda p: "DANGER")
    special("post value is an array, not an object", "malformed_record",
            lambda p: [p["latitude"], p["longitude"]])

    prev_hi = WINDOWS[1][1]
    special("timestamp exactly T - 1 year (2017-07-31T23:59:59Z): previous window, not current",
            {"window": "previous"}, with_(), at=prev_hi)
    special("timestamp exactly the as-of T (2018-07-31T23:59:59Z): current window",
            {"window": "current"}, with_(), at=T)
    special("timestamp exactly T - 2 years (2016-07-31T23:59:59Z): older than the previous window",
            {"window": "older"}, with_(), at=WINDOWS[0][1])
    future = epoch(datetime.datetime(2019, 1, 1, tzinfo=datetime.timezone.utc))
    special("timestamp in the future (client clock wrong): counted as excluded_future",
            {"window": "future"}, with_(), at=future, created_ms=(T - 86400 * 90) * 1000 + 417)
    ms_value = 1531234567890
    special("timestamp in epoch milliseconds (>= 1e11): 1531234567890 ms = 2018-07-10T14:56:07Z",
            {"window": "current"}, with_(timestamp=ms_value), created_ms=ms_value)
    special("latitude and longitude as numeric strings \"53.72\", \"-1.86\"",
            {"window": "current"}, with_(latitude="53.72", longitude="-1.86"))
    special("ISO 8601 string timestamp with Z \"2018-03-14T18:25:43Z\"",
            {"window": "current"}, with_(timestamp="2018-03-14T18:25:43Z"),
            created_ms=epoch(datetime.datetime(2018, 3, 14, 18, 25, 43, tzinfo=datetime.timezone.utc)) * 1000 + 12)
    special("ISO 8601 string timestamp with offset \"2018-06-14T19:25:43+01:00\" = 18:25:43Z",
            {"window": "current"}, with_(timestamp="2018-06-14T19:25:43+01:00"),
            created_ms=epoch(datetime.datetime(2018, 6, 14, 18, 25, 43, tzinfo=datetime.timezone.utc)) * 1000 + 881)

    # users-follow: a friend follows a walker home.
    follow = {}
    added_pairs = sorted((u, v) for u in friends for v, s in friends[u].items() if s == "added")
    for _ in range(10):
        follower, walker = g.choice(added_pairs)
        h = next(x for x in HOTSPOTS if x[0] == homes[walker])
        d = g.choice(HOTSPOTS)
        clat, clon = g.point(h[1], h[2], h[3])
        dlat, dlon = g.point(d[1], d[2], d[3])
        follow.setdefault(follower, {})[walker] = {
            "current": {"latitude": clat, "longitude": clon},
            "destination": {"latitude": dlat, "longitude": dlon},
        }

    db1 = build_db(dict(posts), users, friends, follow)

    # One day later: edits of existing posts (all copies) and new posts of 2018-08-01.
    posts2 = {pid: (dict(p) if isinstance(p, dict) else p) for pid, p in posts.items()}
    recent = [pid for pid in ordinary if posts[pid]["timestamp"] > T - 90 * 86400]
    older = [pid for pid in ordinary if posts[pid]["timestamp"] <= T - 90 * 86400]
    chosen = []
    while len(chosen) < sum(N_EDITS):
        pool = recent if len(chosen) < 30 else older
        pid = g.choice(pool)
        if pid not in chosen and not posts[pid]["policeArrived"]:
            chosen.append(pid)
    edits = []
    for i, pid in enumerate(chosen):
        p = posts2[pid]
        kind = "description" if i < N_EDITS[0] else \
            "policeArrived" if i < N_EDITS[0] + N_EDITS[1] else "description+policeArrived"
        if "description" in kind:
            text = g.choice(EDIT_TEXTS)
            p["description"] = text if p["description"] == "" else p["description"] + ". " + text
        if "policeArrived" in kind:
            p["policeArrived"] = True
        edits.append({"push_id": pid, "edit": kind})
    new_ids = []
    day_lo = epoch(EDIT_DAY) - 1
    for _ in range(N_NEW_POSTS):
        h = g.weighted(HOTSPOTS, [x[4][2] for x in HOTSPOTS])
        lat, lon = g.point(h[1], h[2], h[3])
        pid, post = new_post(g, pick_user(g, uids, homes, activity, h[0]),
                             g.time_in(day_lo, day_lo + 86401), lat, lon, 2)
        post["policeArrived"] = False
        assert pid not in posts2
        posts2[pid] = post
        new_ids.append(pid)
    db2 = build_db(posts2, users, friends, follow)
    return db1, db2, specials, edits, new_ids


class _Delete:
    def __repr__(self):
        return "DELETE"


DELETE = _Delete()


# ---------------------------------------------------------------- expected results

def evaluate(db, as_ofs, queries):
    posts = db["posts"]
    reasons, valid = {}, {}
    for pid, post in posts.items():
        reason, rec = classify(post)
        if reason:
            reasons[pid] = reason
        else:
            valid[pid] = rec
    by_reason = {}
    for r in reasons.values():
        by_reason[r] = by_reason.get(r, 0) + 1
    years = {}
    for t, _, _ in valid.values():
        y = str(_dt(t).year)
        years[y] = years.get(y, 0) + 1
    out = {
        "posts_members": len(posts),
        "accepted": len(valid),
        "rejected": len(reasons),
        "rejected_by_reason": dict(sorted(by_reason.items())),
        "calendar_years_all_accepted": dict(sorted(years.items())),
        "windows": [],
        "point_queries": [],
    }
    for a in as_ofs:
        counts = {"current": 0, "previous": 0, "older": 0, "future": 0}
        for t, _, _ in valid.values():
            counts[window_of(t, a)] += 1
        out["windows"].append({"as_of": iso(a), "current": counts["current"],
                               "previous": counts["previous"], "excluded_future": counts["future"],
                               "older_than_previous": counts["older"]})
    a = as_ofs[0]
    for name, qlat, qlon in queries:
        cur = prev = handled = 0
        for pid, (t, la, lo) in valid.items():
            d = haversine(qlat, qlon, la, lo)
            assert abs(d - RADIUS_M) > MIN_MARGIN_M, "post %s within %s m of the radius" % (pid, MIN_MARGIN_M)
            if d <= RADIUS_M:
                w = window_of(t, a)
                if w == "current":
                    cur += 1
                    if posts[pid].get("policeArrived") is True:
                        handled += 1
                elif w == "previous":
                    prev += 1
        delta = cur - prev
        cls = "safe" if cur < THRESHOLDS[0] else "medium" if cur < THRESHOLDS[1] else "dangerous"
        out["point_queries"].append({
            "name": name, "lat": qlat, "lon": qlon, "radius_m": RADIUS_M, "as_of": iso(a),
            "current": cur, "previous": prev, "delta": delta,
            "pct": None if prev == 0 else delta / prev, "handled": handled, "class": cls,
        })
    return out, valid


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        sys.stderr.write(__doc__)
        return 1
    out_dir = argv[1] if len(argv) == 2 else os.path.dirname(os.path.abspath(__file__))
    db1, db2, specials, edits, new_ids = generate()
    b1, b2 = dump(db1), dump(db2)
    queries = [(h[0], h[1], h[2]) for h in HOTSPOTS]
    as_of_2 = epoch(EDIT_DAY) + 86399
    e1, valid1 = evaluate(db1, [T, as_of_2], queries)
    e2, valid2 = evaluate(db2, [T, as_of_2], queries)

    # Each special post must come out as intended.
    for s in specials:
        reason, rec = classify(db1["posts"][s["push_id"]])
        s["record"] = "posts." + s["push_id"]
        if isinstance(s["expected"], str):
            assert reason == s["expected"], (s, reason)
            s["expected"] = {"accepted": False, "reason": reason}
        else:
            assert reason is None and window_of(rec[0], T) == s["expected"]["window"], (s, reason, rec)
            s["expected"] = {"accepted": True, "time": iso(rec[0]), "window": s["expected"]["window"]}

    # Ingesting file 2 into a store that holds file 1.
    p1, p2 = db1["posts"], db2["posts"]
    new = sorted(k for k in valid2 if k not in valid1)
    updated = sorted(k for k in valid2 if k in valid1 and p1[k] != p2[k])
    unchanged = sorted(k for k in valid2 if k in valid1 and p1[k] == p2[k])
    assert new == sorted(new_ids) and updated == sorted(e["push_id"] for e in edits)
    assert set(valid1) <= set(valid2)
    for k in p1:  # everything not edited is identical, in every node
        assert (p1[k] == p2[k]) == (k not in updated)
    for node in ("users", "users-friends", "users-follow"):
        assert db1[node] == db2[node]

    def nodes(db):
        return {
            "users": len(db["users"]),
            "users-posts_copies": sum(len(v) for v in db["users-posts"].values()),
            "timeline_copies": sum(len(v) for v in db["timeline"].values()),
            "users-friends_entries": sum(len(v) for v in db["users-friends"].values()),
            "users-friends_by_status": {s: sum(1 for v in db["users-friends"].values()
                                               for x in v.values() if x == s)
                                        for s in ("added", "pending", "requested")},
            "users-follow_entries": sum(len(v) for v in db["users-follow"].values()),
        }

    f1 = dict(e1)
    f1.update({"sha256": hashlib.sha256(b1).hexdigest(), "bytes": len(b1), "other_nodes": nodes(db1),
               "ingest_into_empty_store": {"new": len(valid1), "updated": 0, "duplicate": 0,
                                           "rejected": e1["rejected"]}})
    f2 = dict(e2)
    f2.update({"sha256": hashlib.sha256(b2).hexdigest(), "bytes": len(b2), "other_nodes": nodes(db2),
               "ingest_after_first_file": {"new": len(new), "updated": len(updated),
                                           "duplicate": len(unchanged), "rejected": e2["rejected"]},
               "new_post_ids": new,
               "edits": sorted(edits, key=lambda e: e["push_id"])})
    manifest = {
        "description": "Synthetic WatchMe Firebase exports for areawatch; see README.md.",
        "generator": {"script": "generate.py", "seed": SEED, "command": "python3 generate.py"},
        "as_of": iso(T),
        "windows_at_as_of": {"current": "(%s, %s]" % (iso(WINDOWS[2][0]), iso(WINDOWS[2][1])),
                             "previous": "(%s, %s]" % (iso(WINDOWS[1][0]), iso(WINDOWS[1][1]))},
        "files": {FILE_1: f1, FILE_2: f2},
        "special_posts": sorted(specials, key=lambda s: s["push_id"]),
        "notes": [
            "Only the posts node is read; users-posts and timeline hold copies of the same posts "
            "and users-follow holds coordinates that are not incidents: none of them change a count.",
            "accepted = posts members that pass validation (SPEC §3); new/updated/duplicate are the "
            "SPEC §4 outcomes of those accepted records.",
            "calendar_years_all_accepted counts every accepted post by the UTC year of its time, "
            "including posts after the as-of.",
            "point_queries: SPEC §7.1 at each hotspot centre, radius 1000 m, thresholds 5,10, "
            "as-of %s; no post lies within %s m of the radius." % (iso(T), MIN_MARGIN_M),
        ],
    }
    mbytes = (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    for name, data in ((FILE_1, b1), (FILE_2, b2), ("manifest.json", mbytes),
                       ("README.md", readme(manifest).encode("utf-8"))):
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)
        print("%s: %d bytes" % (name, len(data)))
    return 0


def readme(m):
    f1, f2 = m["files"][FILE_1], m["files"][FILE_2]
    reasons = sorted(set(f1["rejected_by_reason"]) | set(f2["rejected_by_reason"]))
    lines = []
    add = lines.append
    add("# WatchMe export sample (synthetic)")
    add("")
    add("*This file, `manifest.json` and the two exports are written by `generate.py`; edit the "
        "generator, not them.*")
    add("")
    add("Two whole-database exports of a made-up WatchMe Firebase Realtime Database, in the shape "
        "the app writes (see the project's notes on WatchMe): `posts`, `users`, `users-posts`, "
        "`timeline`, `users-friends`, `users-follow`, compact JSON, keys sorted in every object.")
    add("")
    add("**Synthetic data.** No real people: %d users named `Test User 001` … with addresses "
        "`user1@example.org` … and avatars under `https://example.org/`; uids (28 characters) and "
        "push ids (20 characters, Firebase's `childByAutoId()` scheme with the creation time in the "
        "first 8) are random. Post locations are random points around real places of Calderdale "
        "(West Yorkshire) and do not describe real incidents." % f1["other_nodes"]["users"])
    add("")
    add("Regenerate (Python 3 standard library only, fixed seed %d, byte-identical output):" % m["generator"]["seed"])
    add("")
    add("    python3 generate.py [OUT_DIR]      # OUT_DIR defaults to this folder")
    add("")
    add("## Files")
    add("")
    add("| file | bytes | SHA-256 |")
    add("|---|---|---|")
    for name in (FILE_1, FILE_2):
        add("| `%s` | %s | `%s` |" % (name, format(m["files"][name]["bytes"], ","), m["files"][name]["sha256"]))
    add("")
    add("- `%s`: the database at the as-of %s. Posts from 2015-08-01 to 2018-07-31 around hotspots "
        "(Halifax town centre and Pellon, Brighouse, Elland, Sowerby Bridge, Todmorden, Hebden Bridge, "
        "Ripponden, Hipperholme) plus scattered ones; some hotspots have more posts in the last year, "
        "others fewer. `timestamp` is integer epoch seconds, as the app writes it." % (FILE_1, m["as_of"]))
    add("- `%s`: the same database one day later: %d posts edited in every copy (description "
        "and/or `policeArrived` false → true) and %d new posts dated 2018-08-01 (after the as-of: "
        "`excluded_future` when reporting at %s). Everything else is identical."
        % (FILE_2, len(f2["edits"]), len(f2["new_post_ids"]), m["as_of"]))
    add("- `manifest.json`: the counts below, the special posts and what each exercises, the edited "
        "and new push ids, window counts and point queries, all computed by the generator from its "
        "own data.")
    add("")
    add("Only `posts` is read by areawatch. `users-posts` and `timeline` carry copies of the same "
        "posts (%d and %d copies in the first file) and `users-follow` carries coordinates of walks; "
        "none of them may change a count."
        % (f1["other_nodes"]["users-posts_copies"], f1["other_nodes"]["timeline_copies"]))
    add("")
    add("## Expected ingest results")
    add("")
    add("| | %s | %s |" % (FILE_1, FILE_2))
    add("|---|---|---|")
    add("| `posts` members (records) | %d | %d |" % (f1["posts_members"], f2["posts_members"]))
    add("| accepted | %d | %d |" % (f1["accepted"], f2["accepted"]))
    add("| rejected | %d | %d |" % (f1["rejected"], f2["rejected"]))
    for r in reasons:
        add("| rejected: `%s` | %d | %d |" % (r, f1["rejected_by_reason"].get(r, 0), f2["rejected_by_reason"].get(r, 0)))
    i1, i2 = f1["ingest_into_empty_store"], f2["ingest_after_first_file"]
    add("| new (inserted) | %d (empty store) | %d (after the first file) |" % (i1["new"], i2["new"]))
    add("| updated | %d | %d |" % (i1["updated"], i2["updated"]))
    add("| unchanged (duplicate) | %d | %d |" % (i1["duplicate"], i2["duplicate"]))
    for w1, w2 in zip(f1["windows"], f2["windows"]):
        add("| as-of %s: current / previous / excluded_future | %d / %d / %d | %d / %d / %d |"
            % (w1["as_of"], w1["current"], w1["previous"], w1["excluded_future"],
               w2["current"], w2["previous"], w2["excluded_future"]))
    add("")
    add("Windows at the as-of %s: current %s, previous %s. A post exactly at T − 1 year is in the "
        "previous window." % (m["as_of"], m["windows_at_as_of"]["current"], m["windows_at_as_of"]["previous"]))
    add("")
    add("## Special posts (in `posts` of both files)")
    add("")
    add("| push id | exercises | expected |")
    add("|---|---|---|")
    for s in m["special_posts"]:
        e = s["expected"]
        where = {"current": "current window", "previous": "previous window",
                 "older": "in neither window (older)", "future": "after the as-of: `excluded_future`"}
        exp = "accepted, %s, %s" % (e["time"], where[e["window"]]) if e["accepted"] else "reject `%s`" % e["reason"]
        add("| `%s` | %s | %s |" % (s["push_id"], s["exercises"].replace("|", "\\|"), exp))
    add("")
    add("## Point queries (radius 1000 m, as-of %s)" % m["as_of"])
    add("")
    add("| centre | lat, lon | current / previous (first file) | class | current / previous (second file) |")
    add("|---|---|---|---|---|")
    for q1, q2 in zip(f1["point_queries"], f2["point_queries"]):
        add("| %s | %s, %s | %d / %d | %s | %d / %d |" % (q1["name"], q1["lat"], q1["lon"], q1["current"],
                                                        q1["previous"], q1["class"], q2["current"], q2["previous"]))
    add("")
    add("Full answers (delta, pct, handled) are in `manifest.json`.")
    add("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
