-- setup: base
-- DolphinDB mavg(X, 20) has minPeriods = 20: NULL until the window holds 20 non-null values.
SELECT sym, ts,
       CASE WHEN count(price) OVER w >= 20 THEN avg(price) OVER w END AS ma,
       CAST(sum(qty) OVER (PARTITION BY sym ORDER BY i ROWS UNBOUNDED PRECEDING) AS BIGINT) AS cq
FROM t
WINDOW w AS (PARTITION BY sym ORDER BY i ROWS BETWEEN 19 PRECEDING AND CURRENT ROW)
