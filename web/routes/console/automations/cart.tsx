import { data, Form, Link, useNavigation } from "react-router";
import { addAbandonedCheckoutActivity, addActivityRequest, getAbandonedCheckoutWithEmails } from "#worker/automations";
import { parseWith } from "#worker/platform/validation";
import { CartItems, CartTimeline } from "#web/components/console/abandoned-cart-view";
import { CartStatusBadge, contactOf } from "#web/components/console/abandoned-carts";
import { AutomationHead, dateTimeText, Facts } from "#web/components/console/automation-lists";
import { orRefuse } from "#web/components/console/problem.server";
import { consoleMeta } from "#web/components/console/title";
import { describedBy, ErrorSummary, Field, FieldError, fieldId, type Problem } from "#web/components/ui/form";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { Notice, useCan } from "#web/components/ui/page";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-automation-lists.css";
import "#web/styles/console-abandoned-carts.css";
import type { Route } from "./+types/cart";

export const meta = consoleMeta("Abandoned cart — Automations — Console");

/** One abandoned cart with its activities and recovery emails: one batch (2 D1 round trips with the session). */
export const loader = staffOnly(async ({ context, params }: Route.LoaderArgs) => {
  return orRefuse(getAbandonedCheckoutWithEmails(context.services, params.id));
});

/** "Add a custom activity": what the merchant did about the cart (automations.manage). */
export const action = staffOnly(async ({ context, request, params }: Route.ActionArgs) => {
  const form = await request.formData();
  const values = {
    title: String(form.get("customActivity.title") ?? "").slice(0, 400),
    description: String(form.get("customActivity.description") ?? "").slice(0, 4000),
  };
  try {
    const req = parseWith(addActivityRequest, {
      customActivity: { title: values.title, ...(values.description.trim() ? { description: values.description } : {}) },
    });
    await addAbandonedCheckoutActivity(context.services, params.id, req);
    return { ok: "Activity added.", problem: null as Problem | null, values: { title: "", description: "" } };
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ ok: null, problem, values }, { status: problem.status ?? 400 });
  }
});

const TITLE = "customActivity.title";
const DESCRIPTION = "customActivity.description";

/** "Add a custom activity": its fields named by the request's paths, so a refusal's errors land on them. */
function ActivityForm({
  result,
  resetKey,
}: {
  result: { problem: Problem | null; values: { title: string; description: string } } | undefined;
  resetKey: number | string;
}) {
  const busy = useNavigation().state === "submitting";
  const problem = result?.problem;
  const descriptionError = problem?.fields[DESCRIPTION];
  return (
    <Form method="post" className="console-form carts-activity-form" aria-labelledby="carts-activity-title" noValidate key={resetKey}>
      <h2 id="carts-activity-title">Add a custom activity</h2>
      <ErrorSummary problem={problem} fieldIds={fieldId} />
      <Field
        name={TITLE}
        label="What happened"
        maxLength={200}
        defaultValue={result?.values.title}
        hint="For example: “Called the shopper, sent a 10% coupon”."
        problem={problem}
      />
      <div className="console-field">
        <label htmlFor={fieldId(DESCRIPTION)}>Details (optional)</label>
        <textarea
          id={fieldId(DESCRIPTION)}
          name={DESCRIPTION}
          rows={3}
          maxLength={2000}
          defaultValue={result?.values.description}
          {...describedBy(fieldId(DESCRIPTION), false, !!descriptionError)}
        />
        <FieldError id={`${fieldId(DESCRIPTION)}-error`} message={descriptionError} />
      </div>
      <button type="submit" className="console-button primary" disabled={busy}>
        Add activity
      </button>
    </Form>
  );
}

export default function ConsoleAbandonedCart({ loaderData, actionData }: Route.ComponentProps) {
  const { abandonedCheckout: cart, recoveryEmails } = loaderData;
  const mayManage = useCan("automations.manage");
  return (
    <>
      <AutomationHead title="Abandoned cart" back={<Link to="/console/automations">← All abandoned carts</Link>} />
      <Facts
        facts={[
          ["Contact", contactOf(cart)],
          ["Status", <CartStatusBadge key="status" status={cart.status} />],
          ["Abandoned", dateTimeText(cart.abandonTime)],
          ["Shopper", "memberId" in cart.buyerInfo && cart.buyerInfo.memberId ? "A member" : "A visitor"],
          cart.recoveredRevenue && ["Recovered revenue", cart.recoveredRevenue.formattedAmount],
          ["Recovery link", <code key="link">{cart.checkoutUrl}</code>, true],
        ]}
      />

      <h2>Items</h2>
      <CartItems cart={cart} />

      <h2>Activity</h2>
      <CartTimeline cart={cart} emails={recoveryEmails} />

      <Notice text={actionData?.ok} />
      {mayManage && <ActivityForm result={actionData} resetKey={actionData?.ok ? cart.activities.length : "form"} />}
    </>
  );
}
