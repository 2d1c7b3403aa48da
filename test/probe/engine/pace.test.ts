/**
 * One server's pace: a shed narrows how many requests may be in flight and spaces their starts, a
 * `Retry-After` holds every new request, and answers that are not shed undo it step by step.
 */
import { describe, expect, it } from 'vitest';
import { createPace, createServerPaces, type Ticket } from '../../../src/probe/target/pace.js';

const never = new AbortController().signal;

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const result = await Promise.race([promise.then(() => true as const), late]);
  clearTimeout(timer);
  return result;
}

describe('the pace', () => {
  it('lets every request through at once until the server sheds', async () => {
    const pace = createPace();
    const tickets = await Promise.all(Array.from({ length: 12 }, () => pace.admit(never)));
    expect(tickets.every((t) => t !== undefined)).toBe(true);
    expect(pace.stats()).toMatchObject({ total: 0 });
  });

  it('halves the requests in flight after a shed, and admits the next once one is answered', async () => {
    const pace = createPace();
    const tickets = (await Promise.all([1, 2, 3, 4].map(() => pace.admit(never)))) as Ticket[];
    pace.shed({ kind: '429' }, tickets[0]!);
    for (const t of tickets.slice(0, 3)) t.release();
    // Four were in flight: now two may be; one still is, so one more gets in, the next waits.
    const second = await pace.admit(never);
    expect(second).toBeDefined();
    const third = pace.admit(never);
    expect(await settlesWithin(third, 150)).toBe(false);
    tickets[3]!.release();
    expect(await settlesWithin(third, 500)).toBe(true);
    expect(pace.stats()).toMatchObject({ total: 1, byKind: { '429': 1 }, narrowest: 2 });
  });

  it('holds every new request until the Retry-After has passed', async () => {
    const pace = createPace();
    const ticket = (await pace.admit(never))!;
    pace.shed({ kind: 'in-band', retryAfterMs: 300 }, ticket);
    ticket.release();
    const started = performance.now();
    await pace.admit(never);
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
  });

  it('eases back to no limit after answers that are not shed', async () => {
    const pace = createPace();
    const first = (await pace.admit(never))!;
    pace.shed({ kind: '503' }, first);
    first.release();
    // Width 1 and spacing: undo it, four calm answers per step.
    for (let i = 0; i < 12; i++) pace.calm();
    const all = await Promise.all(Array.from({ length: 8 }, () => pace.admit(never)));
    expect(all.every((t) => t !== undefined)).toBe(true);
  });

  it('gives up on an admission when the signal aborts, and counts what shedding cost', async () => {
    const pace = createPace();
    const held = (await pace.admit(never))!;
    pace.shed({ kind: '429', retryAfterMs: 10_000 }, held);
    const stop = new AbortController();
    const waiting = pace.admit(stop.signal);
    stop.abort();
    expect(await waiting).toBeUndefined();
    pace.count('gaveUp');
    expect(pace.relentless()).toBe(true);
    pace.calm();
    expect(pace.relentless()).toBe(false);
  });

  it("holds only the identity the server asked to wait, and narrows the server's width for both", async () => {
    const { A, B } = createServerPaces();
    const held = (await B.admit(never))!;
    B.shed({ kind: '429', retryAfterMs: 10_000 }, held);
    held.release();
    expect(await settlesWithin(B.admit(never), 100)).toBe(false);
    // A is not held by B's Retry-After, but the server's width is one for both now.
    const first = (await A.admit(never))!;
    const second = A.admit(never);
    expect(await settlesWithin(second, 100)).toBe(false);
    first.release();
    expect(await settlesWithin(second, 500)).toBe(true);
    expect(A.stats()).toMatchObject({ total: 0 });
    expect(B.stats()).toMatchObject({ total: 1, narrowest: 1 });
  });

  it("keeps the shed identity narrow until its own answers widen it, whatever the other's do", async () => {
    const { A, B } = createServerPaces();
    const bs = (await Promise.all([1, 2, 3, 4].map(() => B.admit(never)))) as Ticket[];
    B.shed({ kind: '429' }, bs[0]!);
    B.shed({ kind: '429' }, bs[1]!);
    for (const t of bs) t.release();
    // A's calm answers widen the server's lanes back to no limit ...
    for (let i = 0; i < 20; i++) {
      const t = (await A.admit(never))!;
      A.calm();
      t.release();
    }
    const as = await Promise.all(Array.from({ length: 8 }, () => A.admit(never)));
    expect(as.every((t) => t !== undefined)).toBe(true);
    for (const t of as) t!.release();
    // ... but B, shed four wide, may still have only two in flight: its own answers decide.
    const b1 = (await B.admit(never))!;
    const b2 = (await B.admit(never))!;
    const b3 = B.admit(never);
    expect(await settlesWithin(b3, 100)).toBe(false);
    for (let i = 0; i < 4; i++) B.calm();
    expect(await settlesWithin(b3, 500)).toBe(true);
    for (const t of [b1, b2, (await b3)!]) t.release();
  });

  it("reports the narrowest the lanes got, an identity's own included", async () => {
    const { A, B } = createServerPaces();
    const as = (await Promise.all([1, 2, 3, 4].map(() => A.admit(never)))) as Ticket[];
    const bs = (await Promise.all([1, 2].map(() => B.admit(never)))) as Ticket[];
    // A is shed first: the server's six in flight become three.
    A.shed({ kind: '429' }, as[0]!);
    // B's request started before that slow-down: the server is not narrowed again, B's own two are.
    B.shed({ kind: '429' }, bs[0]!);
    expect(B.stats().narrowest).toBe(1);
    for (const t of [...as, ...bs]) t.release();
  });

  it('keeps a shed request its place in line while it waits to send again', async () => {
    const { A, B } = createServerPaces();
    const older = B.turn();
    const first = (await B.admit(never, older))!;
    // Shed: it waits out the server's hint off the wire, and keeps its place.
    B.shed({ kind: 'in-band', retryAfterMs: 50 }, first);
    first.release();
    const newer = B.turn();
    const late = B.admit(never, newer);
    // After the hold, the newer request still waits for the older one to go first ...
    expect(await settlesWithin(late, 150)).toBe(false);
    // ... while A, another identity's line, is not held by it.
    const a = A.turn();
    const admittedA = A.admit(never, a);
    expect(await settlesWithin(admittedA, 100)).toBe(true);
    (await admittedA)!.release();
    const again = (await B.admit(never, older))!;
    again.release();
    older.end();
    expect(await settlesWithin(late, 500)).toBe(true);
    newer.end();
    a.end();
  });

  it("remembers a give-up per identity, and for the server until anyone's answer", () => {
    const { A, B } = createServerPaces();
    B.count('gaveUp');
    // Nothing answered since: the server may shed everything, A's next shed request included.
    expect(A.relentless()).toBe(true);
    expect(B.relentless()).toBe(true);
    A.calm();
    // A is served: the server sheds B alone, and B still gives up at once.
    expect(A.relentless()).toBe(false);
    expect(B.relentless()).toBe(true);
    B.calm();
    expect(B.relentless()).toBe(false);
  });
});
