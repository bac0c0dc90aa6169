import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "#worker/platform/http";
import { parseWith, readBody } from "#worker/platform/validation";
import { addCustomerNote, getCustomer, listCustomers } from "./customers";

/**
 * Customer calls (merchants), mounted at /api/v1:
 *
 *   GET  /customers?q=&cursor=&limit=     → {customers, next}   staff (q: start of the email; cursor: the last email)
 *   GET  /customers/:email                → {customer}          staff
 *   POST /customers/:email/notes  {body}  → {note}              orders.write
 */
export const customerRoutes = new Hono<AppEnv>()
  .get("/customers", async (c) => c.json(await listCustomers(c.get("ctx"), parseWith(listQuery, c.req.query()))))
  .get("/customers/:email", async (c) => c.json({ customer: await getCustomer(c.get("ctx"), c.req.param("email")) }))
  .post("/customers/:email/notes", async (c) =>
    c.json({ note: await addCustomerNote(c.get("ctx"), c.req.param("email"), await readBody(c, noteRequest)) }),
  );

/** The list's query string: a bad limit is refused rather than quietly replaced. */
const listQuery = z.object({
  q: z.string().max(320).default(""),
  cursor: z.string().max(320).default(""),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

/** A note's body; its length and emptiness are checked by the service, which the console calls too. */
const noteRequest = z.object({ body: z.unknown().optional() });
