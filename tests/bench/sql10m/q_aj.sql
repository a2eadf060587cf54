-- setup: join
-- aj keeps every trade: ASOF LEFT JOIN; the right time column is kept as aj does
SELECT t.sym, t.time, t.price, t.qty, q.time AS quote_time, q.bid, q.ask
FROM trades t ASOF LEFT JOIN quotes q ON t.sym = q.sym AND t.time >= q.time
