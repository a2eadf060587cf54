-- setup: join
-- wj's window [t - 10s, t] (both ends inclusive) as a RANGE window over trades and quotes
-- merged per symbol; the fastest of the formulations tried on DuckDB (a range join or a
-- time-bucket equi-join were slower), and it gives the same answers.
SELECT sym, time, price, qty, avg_bid FROM (
  SELECT *, avg(bid) OVER (PARTITION BY sym ORDER BY time
                           RANGE BETWEEN INTERVAL 10 SECOND PRECEDING AND CURRENT ROW) AS avg_bid
  FROM (SELECT sym, time, price, qty, NULL::DOUBLE AS bid, 1 AS side FROM trades
        UNION ALL
        SELECT sym, time, NULL, NULL, bid, 0 FROM quotes))
WHERE side = 1
