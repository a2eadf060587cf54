// Drive `beluga server` over WebSocket with the real DolphinDB JavaScript client (npm
// `dolphindb` 3.1.x). Why: the JS client speaks the same protocol as one binary WebSocket
// message per request and per answer; this proves the WebSocket side of the port.
// Usage: node ddb_js_client_test.mjs PORT   (run from a folder whose node_modules has dolphindb)
// Prints PASS/FAIL per check; exits non-zero on any failure.

// Node 20 lacks Promise.withResolvers, which the client uses
if (!Promise.withResolvers) Promise.withResolvers = function () { let resolve, reject; const promise = new Promise((a, b) => { resolve = a; reject = b }); return { promise, resolve, reject } }
const { DDB, DdbInt } = await import('dolphindb')
const port = process.argv[2]
const ddb = new DDB(`ws://127.0.0.1:${port}`, { username: 'admin', password: '123456' })
let fails = 0, passes = 0
const check = (name, ok, detail) => {
  console.log((ok ? 'PASS ' : 'FAIL ') + name + (ok ? '' : ' -- ' + String(detail)))
  ok ? passes++ : fails++
}
try {
  await ddb.connect()
  check('execute 1+1', await ddb.execute('1+1') === 2)
  const v = await ddb.execute('1 2 3')
  check('vector', Array.from(v).join(',') === '1,2,3', v)
  check('string', await ddb.execute("'hello'") === 'hello')
  const t = await ddb.execute('table(1 2 as a, `x`y as b)')
  check('table', Array.isArray(t) && t.length === 2 && t[0].a === 1 && t[1].b === 'y', JSON.stringify(t))
  // typed arguments take the plain function-request path
  check('invoke add', await ddb.invoke('add', [new DdbInt(1), new DdbInt(41)]) === 42)
  const c = await ddb.call('add', [new DdbInt(2), new DdbInt(3)])
  check('call add', c.value === 5, c.value)
  const lines = []
  check('print frame then value', await ddb.execute('print("from js"); 5', { listener: m => lines.push(m) }) === 5)
  try {
    await ddb.execute('noSuchFunction(1)')
    check('error raised', false, 'no error')
  } catch (e) {
    check('error raised', String(e).includes('noSuchFunction'), e)
  }
  check('session survives an error', await ddb.execute('2*3') === 6)
  // a DECIMAL matrix keeps its type and scale (PROTOCOL.md 5.6/5.8: one scale word after
  // rows and cols); rows as the client lays them out, null as ''
  const dm = await ddb.execute('decimal64(matrix(1.25 2.5, 3.75 NULL), 2)')
  check('DECIMAL64 matrix', dm.type === 38 && dm.nrows === 2 && dm.ncolumns === 2
    && JSON.stringify(dm.data) === JSON.stringify([['1.25', '3.75'], ['2.50', '']]), JSON.stringify(dm))
  const d = await ddb.execute('2024.01.08')
  check('DATE scalar', d instanceof Date ? d.toISOString().startsWith('2024-01-08') : String(d).includes('2024'), d)
} catch (e) {
  check('no exception', false, e)
}
ddb.disconnect()
console.log(`${passes} passed, ${fails} failed`)
process.exit(fails ? 1 : 0)
