import { Form, Link, useActionData, useLoaderData } from "react-router";
import { findSubscription, unsubscribe } from "#worker/email";
import { noStore } from "#web/auth.server";
import type { Route } from "./+types/unsubscribe";

export function meta() {
  return [{ title: "Unsubscribe — Edge Storefront" }, { name: "robots", content: "noindex" }];
}

export const headers = () => noStore;

/**
 * The unsubscribe link of marketing emails (abandoned-cart reminders, back in stock). Opening it only asks for a
 * confirmation (mail scanners follow links); the form posts to the same address, as does a mail client's one-click
 * List-Unsubscribe-Post (RFC 8058), and later marketing emails to that address are not sent.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const subscription = await findSubscription(context.services, token);
  return { token, email: subscription?.email ?? null, unsubscribed: subscription?.unsubscribed ?? false };
}

export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const token = String(form.get("token") ?? new URL(request.url).searchParams.get("token") ?? "");
  const done = await unsubscribe(context.services, token);
  return { email: done?.email ?? null };
}

export default function Unsubscribe() {
  const { token, email, unsubscribed } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  if (result?.email || unsubscribed) {
    return (
      <main className="page">
        <h1>You are unsubscribed</h1>
        <p className="form-success" role="status">
          {result?.email ?? email} will no longer get cart reminders or other marketing emails from us. Emails about your orders and your account
          still arrive.
        </p>
        <p>
          <Link to="/">Back to the shop</Link>
        </p>
      </main>
    );
  }
  if (!email || result) {
    return (
      <main className="page">
        <h1>Unsubscribe</h1>
        <p className="form-error" role="alert">
          This unsubscribe link is not valid. Use the link in the latest email you received from us.
        </p>
        <p>
          <Link to="/">Back to the shop</Link>
        </p>
      </main>
    );
  }
  return (
    <main className="page">
      <h1>Unsubscribe from marketing emails?</h1>
      <p>
        Stop sending cart reminders and back-in-stock news to <strong>{email}</strong>. Emails about your orders and your account still arrive.
      </p>
      <Form method="post">
        <input type="hidden" name="token" value={token} />
        <button type="submit">Unsubscribe</button>
      </Form>
    </main>
  );
}
