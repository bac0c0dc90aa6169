import { data } from "react-router";
import { addCustomerNote, getCustomer } from "#worker/customers";
import { ApiError } from "#worker/platform/errors";
import { CustomerCarts, CustomerContact, CustomerFigures, CustomerNotes, CustomerOrders } from "#web/components/console/customers/panels";
import { consoleMeta } from "#web/components/console/title";
import type { Problem } from "#web/components/ui/form";
import { CONSOLE, problemOf, readForm } from "#web/components/ui/form.server";
import { Notice, PageHead, useCan } from "#web/components/ui/page";
import { consoleHeaders, staffOnly } from "#web/console.server";
import "#web/styles/console-customers.css";
import type { Route } from "./+types/customer";

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(({ data: d }) =>
  d?.customer ? `${d.customer.name || d.customer.email} — Customers — Console` : "Customer — Console",
);

export const headers = () => consoleHeaders;

/** One customer by email: figures, orders, contact, carts and notes in one D1 round trip. */
export const loader = staffOnly(async ({ context, params }: Route.LoaderArgs) => {
  try {
    return { customer: await getCustomer(context.services, params.email) };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw data("No such customer.", { status: 404 });
    throw err;
  }
});

/** Adds a staff note (orders.write); a refused note writes nothing and shows why under the field. */
export const action = staffOnly(async ({ context, request, params }: Route.ActionArgs) => {
  const values = readForm(await request.formData());
  try {
    await addCustomerNote(context.services, params.email, { body: values.body ?? "" });
    return data<{ ok: string | null; problem: Problem | null }>({ ok: "Note added.", problem: null });
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data<{ ok: string | null; problem: Problem | null }>({ ok: null, problem }, { status: problem.status ?? 400 });
  }
});

export default function ConsoleCustomer({ loaderData, actionData }: Route.ComponentProps) {
  const { customer } = loaderData;
  const canWrite = useCan("orders.write");
  return (
    <>
      <PageHead back={["/console/customers", "Customers"]} title={customer.name || customer.email} />
      {customer.name && <p className="console-muted">{customer.email}</p>}
      <Notice text={actionData?.ok} />
      {actionData?.problem && !canWrite && <p role="alert">{actionData.problem.message}</p>}
      <CustomerFigures customer={customer} />
      <div className="customer-layout">
        <div>
          <CustomerOrders customer={customer} />
          <CustomerCarts customer={customer} />
        </div>
        <div>
          <CustomerContact customer={customer} />
          <CustomerNotes customer={customer} canWrite={canWrite} problem={actionData?.problem ?? null} />
        </div>
      </div>
    </>
  );
}
