// The SDK flow in TypeScript, with the types openapi-typescript generates
// from openapi/openapi.yaml and openapi-fetch as the client: quote, create
// with an idempotency key, poll, label, refund, list events with typed
// data, verify webhook signatures. make sdk-test runs it against a server
// (SHIPD_API, SHIPD_TOKEN); it exits non-zero at the first step that fails.

import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/shipd.js";

type Event = components["schemas"]["Event"];
type EventRecord = components["schemas"]["EventRecord"];

const api = must(process.env.SHIPD_API, "SHIPD_API");
const token = must(process.env.SHIPD_TOKEN, "SHIPD_TOKEN");
const client = createClient<paths>({ baseUrl: api, headers: { Authorization: `Bearer ${token}` } });

function must<T>(v: T | undefined, what: string): T {
  if (v === undefined) throw new Error(`${what} is not set`);
  return v;
}

function step(name: string, detail: string) {
  console.log(`typescript: ok ${name}: ${detail}`);
}

async function until<T>(what: string, f: () => Promise<T | undefined>, seconds = 45): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// A delivery as it arrived: the raw body is what is signed.
interface Delivery {
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

// verify checks a delivery as the README says: the hex HMAC-SHA256 of
// "<timestamp>.<raw body>" keyed with the signing secret, in constant
// time, and a timestamp within 300 s of this clock.
function verify(secret: string, d: Delivery): boolean {
  const ts = String(d.headers["x-service-timestamp"] ?? "");
  const sig = String(d.headers["x-service-signature"] ?? "");
  if (!/^\d+$/.test(ts) || Math.abs(Date.now() / 1000 - Number(ts)) > 300) return false;
  const want = createHmac("sha256", secret).update(`${ts}.`).update(d.body).digest();
  const got = Buffer.from(sig, "hex");
  return got.length === want.length && timingSafeEqual(got, want);
}

// describe reads an event's data through its type: each member of the
// union has the data of its kind, and tracker.updated's is a shipment or
// a tracker, told apart by data.object.
function describe(ev: Event | EventRecord): string {
  switch (ev.type) {
    case "shipment.purchased":
    case "shipment.voided":
    case "shipment.failed":
    case "shipment.void_rejected":
    case "shipment.delivered":
    case "shipment.exception":
    case "shipment.return_to_sender":
      return `${ev.type} ${ev.data.object} ${ev.data.id} ${ev.data.status} ${ev.data.carrier} ${ev.data.service}`;
    case "tracker.updated":
      return ev.data.object === "tracker"
        ? `${ev.type} tracker ${ev.data.id} ${ev.data.trackingNumber} ${ev.data.status}`
        : `${ev.type} shipment ${ev.data.id} ${ev.data.trackingStatus ?? "no scan"}`;
    case "batch.completed":
      return `${ev.type} ${ev.data.object} ${ev.data.id} ${ev.data.counts.purchased}/${ev.data.counts.total}`;
    case "manifest.created":
    case "manifest.failed":
      return `${ev.type} ${ev.data.object} ${ev.data.id} ${ev.data.status}`;
    case "webhook.test":
      return `${ev.type} ${ev.data.subscriptionId}`;
    default:
      // A type a later version added: ignored, as the contract asks.
      return `unknown type ${(ev as { type: string }).type}`;
  }
}

async function main() {
  // A receiver on this machine (test mode delivers to loopback).
  const deliveries: Delivery[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      deliveries.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
  const port = (receiver.address() as AddressInfo).port;

  const hook = await client.POST("/webhooks", {
    body: { url: `http://127.0.0.1:${port}/hooks`, events: ["*"], description: "sdk-test typescript" },
  });
  if (!hook.data) throw new Error(`subscribe: ${hook.response.status} ${JSON.stringify(hook.error)}`);
  const secret = hook.data.signingSecret;
  step("subscribe", `${hook.data.id} to ${hook.data.url}`);

  const shipment = {
    fromAddress: { name: "Shop", phone: "415 555 0100", street1: "1 Market St", city: "San Francisco", state: "CA", zip: "94105", country: "US" },
    toAddress: { name: "Ada Lovelace", phone: "212 555 0199", street1: "350 Fifth Avenue", city: "New York", state: "NY", zip: "10118", country: "US" },
    parcel: { weightOz: 32, lengthIn: 10, widthIn: 8, heightIn: 4 },
  };
  const quote = await client.POST("/labels/quote", { body: shipment });
  const cheapest = quote.data?.rates[0];
  if (!cheapest) throw new Error(`quote: ${quote.response.status} ${JSON.stringify(quote.error)}`);
  step("quote", `${quote.data?.rates.length} rates, cheapest ${cheapest.carrier} ${cheapest.service} ${cheapest.customerPriceCents} ${cheapest.currency}`);

  const create = { ...shipment, carrier: cheapest.carrier, service: cheapest.service, idempotencyKey: `sdk-typescript-${randomUUID()}` };
  const first = await client.POST("/labels/create", { body: create });
  const again = await client.POST("/labels/create", { body: create });
  if (!first.data || !again.data) throw new Error(`create: ${first.response.status} ${JSON.stringify(first.error ?? again.error)}`);
  if (again.data.id !== first.data.id || again.response.headers.get("Idempotent-Replayed") !== "true") {
    throw new Error(`the retry with the same key made ${again.data.id}, not ${first.data.id}`);
  }
  const id = first.data.id;
  step("create", `${id} ${first.data.status}; the retry replayed it`);

  const purchased = await until("purchased", async () => {
    const r = await client.GET("/labels/{id}", { params: { path: { id } } });
    if (r.data?.status === "failed") throw new Error(`the purchase failed: ${r.data.errorMessage}`);
    return r.data?.status === "purchased" ? r.data : undefined;
  });
  step("poll", `${id} purchased, tracking number ${purchased.trackingNumber}`);

  const pdf = await client.GET("/labels/{id}/label.pdf", { params: { path: { id } }, parseAs: "arrayBuffer" });
  const bytes = Buffer.from(pdf.data ?? new ArrayBuffer(0));
  if (pdf.response.status !== 200 || bytes.subarray(0, 5).toString() !== "%PDF-") {
    throw new Error(`label: ${pdf.response.status}, ${bytes.length} bytes`);
  }
  step("label", `${bytes.length} bytes of PDF`);

  const refund = await client.POST("/labels/{id}/refund", { params: { path: { id } }, body: { idempotencyKey: `sdk-typescript-refund-${id}` } });
  if (!refund.data) throw new Error(`refund: ${refund.response.status} ${JSON.stringify(refund.error)}`);
  await until("voided", async () => {
    const r = await client.GET("/labels/{id}", { params: { path: { id } } });
    return r.data?.status === "voided" ? r.data : undefined;
  });
  step("refund", `${id} ${refund.data.status}, then voided`);

  const trackingNumber = "1Z" + randomUUID().replace(/\D/g, "").padEnd(16, "7").slice(0, 16);
  const tracker = await client.POST("/trackers", { body: { trackingNumber } });
  if (!tracker.data) throw new Error(`tracker: ${tracker.response.status} ${JSON.stringify(tracker.error)}`);
  const trackerId = tracker.data.id;
  step("tracker", `${trackerId} follows ${tracker.data.carrier} ${trackingNumber}`);

  const test = await client.POST("/webhooks/{id}/test", { params: { path: { id: hook.data.id } } });
  if (!test.data) throw new Error(`test event: ${test.response.status}`);

  // The history, read through each event's type.
  const seen = await until("the events of this flow in GET /events", async () => {
    const page = await client.GET("/events", { params: { query: { limit: 100 } } });
    if (!page.data) throw new Error(`events: ${page.response.status} ${JSON.stringify(page.error)}`);
    const mine: string[] = [];
    for (const ev of page.data.data) {
      if (ev.type === "shipment.purchased" && ev.data.id === id) mine.push(describe(ev));
      if (ev.type === "shipment.voided" && ev.data.id === id && ev.data.status === "voided") mine.push(describe(ev));
      if (ev.type === "tracker.updated" && ev.data.object === "tracker" && ev.data.id === trackerId) mine.push(describe(ev));
    }
    return new Set(mine.map((m) => m.split(" ")[0])).size === 3 ? mine : undefined;
  });
  step("events", seen.join("; "));

  // The deliveries: each signed, each an Event of its type.
  const delivered = await until("the deliveries of this flow", async () => {
    const types = new Set<string>();
    for (const d of deliveries) {
      if (!verify(secret, d)) throw new Error(`a delivery's signature does not verify: ${d.body.toString().slice(0, 200)}`);
      const ev = JSON.parse(d.body.toString()) as Event;
      if (ev.type === "webhook.test" || (ev.type === "shipment.voided" && ev.data.id === id) || (ev.type === "tracker.updated" && ev.data.object === "tracker" && ev.data.id === trackerId)) {
        types.add(ev.type);
      }
    }
    return types.size === 3 ? [...types] : undefined;
  });
  const tampered: Delivery = { ...deliveries[0]!, body: Buffer.concat([deliveries[0]!.body, Buffer.from(" ")]) };
  if (verify(secret, tampered)) throw new Error("a tampered delivery verifies");
  step("webhooks", `${deliveries.length} deliveries verified (${delivered.join(", ")}); a tampered body is refused`);
  receiver.close();
}

main().catch((err: unknown) => {
  console.error(`typescript: FAILED: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
