-- setup: base
PIVOT (SELECT time_bucket(INTERVAL 1 hour, ts) AS h, sym, qty FROM t) ON sym USING CAST(sum(qty) AS BIGINT) GROUP BY h
