"""The process's bounded tables (the layers' and the attention's templates,
the architectures' facts): a dict in the order its entries were last
used, the one used least lately making room for a new one, so that a
process summarizing many models keeps its latest ones'. Threads share
the tables: an entry another thread removed first is no error."""


def used(table, key):
    """table[key], or None; one found is the latest used."""
    got = table.pop(key, None)
    if got is not None:
        table[key] = got
    return got


def put(table, key, value, limit):
    """table[key] = value as the latest used, past `limit` entries in place
    of those used least lately: the values it replaced or removed."""
    gone = []
    old = table.pop(key, None)
    if old is not None:
        gone.append(old)
    while len(table) >= limit:
        try:
            gone.append(table.pop(next(iter(table))))
        except (KeyError, RuntimeError, StopIteration):  # another thread
            break  # made room, or changed the table as it was read
    table[key] = value
    return gone
