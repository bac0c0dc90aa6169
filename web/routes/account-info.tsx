import { data, Form, Link, redirect, useNavigation } from "react-router";
import { changePassword, getOwnIdentity, signOutEverywhere, updateOwnProfile, changePasswordRequest, parseIdentity } from "#worker/identity";
import { ApiError } from "#worker/platform/errors";
import { requireMember } from "#web/components/account/account.server";
import { AddressFields, type AddressValues } from "#web/components/checkout/fields";
import {
  addressFieldOf,
  addressFrom,
  countries,
  countryName,
  missingAddressFields,
  privateHeaders,
  text,
} from "#web/components/checkout/form.server";
import { ErrorSummary, Field, Select, type Problem } from "#web/components/ui/form";
import { problemOf, readForm } from "#web/components/ui/form.server";
import { readSessionCookie } from "#web/session.server";
import type { Route } from "./+types/account-info";

export function meta() {
  return [{ title: "Account info — Edge Storefront" }, { name: "robots", content: "noindex" }];
}

export const headers = () => privateHeaders;

const TAGS = [
  { value: "SHIPPING", label: "Shipping" },
  { value: "BILLING", label: "Billing" },
  { value: "HOME", label: "Home" },
  { value: "WORK", label: "Work" },
  { value: "UNTAGGED", label: "Other" },
];

interface StoredAddress {
  address: Record<string, string>;
  tag: string;
}

async function profileOf(ctx: Parameters<typeof getOwnIdentity>[0]) {
  const { identity } = await getOwnIdentity(ctx);
  const p = identity.identityProfile as {
    firstName?: string;
    lastName?: string;
    phones?: { phone: string; tag: string }[];
    addresses?: StoredAddress[];
  };
  return {
    email: identity.email.address,
    verified: identity.email.isVerified,
    firstName: p.firstName ?? "",
    lastName: p.lastName ?? "",
    phone: p.phones?.[0]?.phone ?? "",
    addresses: p.addresses ?? [],
  };
}

/** ACCOUNT_INFO: the member's name, email and saved addresses. */
export async function loader({ request, context }: Route.LoaderArgs) {
  requireMember(context.services, request);
  const url = new URL(request.url);
  const profile = await profileOf(context.services);
  const edit = url.searchParams.get("address");
  return {
    profile: { ...profile, addresses: profile.addresses.map((a) => ({ ...a, lines: addressLines(a.address) })) },
    editing: edit === "new" ? -1 : edit !== null && /^\d+$/.test(edit) && Number(edit) < profile.addresses.length ? Number(edit) : null,
    saved: url.searchParams.get("saved"),
    countries: countries(),
  };
}

function addressLines(a: Record<string, string>): string[] {
  return [
    [a.addressLine, a.addressLine2].filter(Boolean).join(", "),
    [a.postalCode, a.city, a.subdivision].filter(Boolean).join(" "),
    countryName(a.country),
  ].filter(Boolean);
}

interface InfoActionData {
  form: "profile" | "address" | "password" | "sessions";
  problem: Problem;
  values: Record<string, string>;
}

/** The page's own session tokens: the one session a password change or "sign out everywhere" keeps. */
function ownSession(request: Request) {
  const cookie = readSessionCookie(request);
  return { accessToken: cookie?.accessToken || null, refreshToken: cookie?.refreshToken ?? null };
}

/**
 * intent=profile | address-save | address-remove, each through updateOwnProfile (the identity service);
 * intent=password (the current password and a new one) and intent=sign-out-others, which keep this browser's session
 * and end every other one.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const ctx = context.services;
  requireMember(ctx, request);
  const form = await request.formData();
  const intent = text(form, "intent");
  // Passwords are never sent back to the page.
  const values = readForm(form, ["currentPassword", "newPassword"]);
  const fail: Fail = (which, problem) => data<InfoActionData>({ form: which, problem, values }, { status: 400, headers: privateHeaders });
  if (intent === "password") return changeOwnPassword(ctx, request, form, fail);
  if (intent === "sign-out-others") {
    try {
      await signOutEverywhere(ctx, ownSession(request));
    } catch (err) {
      return fail("sessions", problemOf(err, { fieldOf: () => null }));
    }
    return redirect("/account?saved=signed-out", { headers: privateHeaders });
  }
  try {
    if (intent === "profile") return await saveProfile(ctx, form);
    if (intent === "address-save") return await saveAddress(ctx, form, fail);
    if (intent === "address-remove") return await removeAddress(ctx, form);
    return fail("profile", { message: "This form asked for something the account page cannot do.", fields: {} });
  } catch (err) {
    const which = intent === "profile" ? "profile" : "address";
    return fail(
      which,
      problemOf(err, {
        fieldOf: (path) => {
          if (path.endsWith("firstName")) return { name: "firstName", label: "First name" };
          if (path.endsWith("lastName")) return { name: "lastName", label: "Last name" };
          if (/phones/.test(path)) return { name: "phone", label: "Phone" };
          return addressFieldOf(path, "addr");
        },
      }),
    );
  }
}

type Ctx = Route.ActionArgs["context"]["services"];
type Fail = (which: InfoActionData["form"], problem: Problem) => ReturnType<typeof data<InfoActionData>>;

/** intent=password: the current password and a new one; this browser's session stays, every other one ends. */
async function changeOwnPassword(ctx: Ctx, request: Request, form: FormData, fail: Fail) {
  const currentPassword = form.get("currentPassword");
  if (typeof currentPassword !== "string" || currentPassword === "") {
    return fail("password", { message: "Please fill in the highlighted fields.", fields: { currentPassword: "Enter your current password." } });
  }
  try {
    const req = parseIdentity(changePasswordRequest, { currentPassword, newPassword: form.get("newPassword") ?? "" });
    await changePassword(ctx, req, ownSession(request));
    return redirect("/account?saved=password", { headers: privateHeaders });
  } catch (err) {
    if (err instanceof ApiError && err.code === "CURRENT_PASSWORD_INCORRECT") {
      return fail("password", {
        message: "The current password is incorrect.",
        fields: { currentPassword: "The current password is incorrect." },
        code: err.code,
      });
    }
    return fail(
      "password",
      problemOf(err, {
        fieldOf: (path) =>
          path === "newPassword"
            ? { name: "newPassword", label: "New password" }
            : path === "currentPassword"
              ? { name: "currentPassword", label: "Current password" }
              : null,
      }),
    );
  }
}

/** intent=profile: the member's name and phone. */
async function saveProfile(ctx: Ctx, form: FormData) {
  const phone = text(form, "phone");
  await updateOwnProfile(ctx, {
    firstName: text(form, "firstName") || null,
    lastName: text(form, "lastName") || null,
    phones: phone ? [{ phone, tag: "MAIN" }] : [],
  });
  return redirect("/account?saved=profile", { headers: privateHeaders });
}

/** intent=address-save: a new address, or the one at `index` replaced. */
async function saveAddress(ctx: Ctx, form: FormData, fail: Fail) {
  const current = (await profileOf(ctx)).addresses;
  const missing = missingAddressFields(form, "addr", ["addressLine", "city", "postalCode", "country"]);
  if (Object.keys(missing).length) return fail("address", { message: "Please fill in the highlighted fields.", fields: missing });
  const index = text(form, "index");
  const entry = {
    address: addressFrom(form, "addr").address,
    tag: TAGS.some((t) => t.value === text(form, "tag")) ? text(form, "tag") : "UNTAGGED",
  };
  const at = /^\d+$/.test(index) && Number(index) < current.length ? Number(index) : -1;
  const next = at >= 0 ? current.map((a, i) => (i === at ? entry : a)) : [...current, entry];
  await updateOwnProfile(ctx, { addresses: next });
  return redirect("/account?saved=address", { headers: privateHeaders });
}

/** intent=address-remove: the address at `index` goes. */
async function removeAddress(ctx: Ctx, form: FormData) {
  const current = (await profileOf(ctx)).addresses;
  const at = Number(text(form, "index"));
  await updateOwnProfile(ctx, { addresses: current.filter((_, i) => i !== at) });
  return redirect("/account?saved=removed", { headers: privateHeaders });
}

const SAVED: Record<string, string> = {
  profile: "Your details are saved.",
  address: "The address is saved.",
  removed: "The address was removed.",
  password: "Your password is changed. You are signed out on every other device.",
  "signed-out": "You are signed out on every other device.",
};

type Profile = Route.ComponentProps["loaderData"]["profile"];

export default function AccountInfo({ loaderData, actionData }: Route.ComponentProps) {
  const { profile, editing, saved, countries } = loaderData;
  const failed = actionData as InfoActionData | undefined;
  const problemFor = (which: InfoActionData["form"]) => (failed?.form === which ? failed.problem : null);
  return (
    <>
      <h1>Account info</h1>
      {saved && SAVED[saved] && !failed && (
        <p className="form-success" role="status">
          {SAVED[saved]}
        </p>
      )}
      <ProfileSection profile={profile} problem={problemFor("profile")} values={failed?.values} />
      <AddressesSection profile={profile} editing={editing} countries={countries} failed={failed} />
      <PasswordSection email={profile.email} problem={problemFor("password")} sessionsProblem={problemFor("sessions")} />
    </>
  );
}

/** Whether the form with this intent is being sent. */
function useBusy() {
  const nav = useNavigation();
  return (intent: string) => nav.state !== "idle" && nav.formData?.get("intent") === intent;
}

function ProfileSection({ profile, problem, values }: { profile: Profile; problem: Problem | null; values?: Record<string, string> }) {
  const busy = useBusy();
  return (
    <section aria-labelledby="profile-title" className="panel">
      <h2 id="profile-title">Your details</h2>
      <ErrorSummary problem={problem} id="profile-errors" />
      <Form method="post" className="checkout-form">
        <input type="hidden" name="intent" value="profile" />
        <div className="address-fields">
          <Field
            name="firstName"
            label="First name"
            autoComplete="given-name"
            maxLength={100}
            defaultValue={values?.firstName ?? profile.firstName}
            problem={problem}
          />
          <Field
            name="lastName"
            label="Last name"
            autoComplete="family-name"
            maxLength={100}
            defaultValue={values?.lastName ?? profile.lastName}
            problem={problem}
          />
          <Field
            name="phone"
            label="Phone (optional)"
            type="tel"
            autoComplete="tel"
            maxLength={50}
            defaultValue={values?.phone ?? profile.phone}
            problem={problem}
          />
          <Field
            name="email"
            label="Email"
            type="email"
            value={profile.email}
            readOnly
            hint={`This is the email you log in with${profile.verified ? " (confirmed)" : ""}. To use another one, contact the shop.`}
          />
        </div>
        <button type="submit" className="button primary" disabled={busy("profile")}>
          {busy("profile") ? "Saving…" : "Save details"}
        </button>
      </Form>
    </section>
  );
}

function AddressesSection({
  profile,
  editing,
  countries,
  failed,
}: {
  profile: Profile;
  editing: number | null;
  countries: Route.ComponentProps["loaderData"]["countries"];
  failed: InfoActionData | undefined;
}) {
  const busy = useBusy();
  const addressProblem = failed?.form === "address" ? failed.problem : null;
  const editIndex =
    failed?.form === "address" ? (failed.values.index === "" || failed.values.index === undefined ? -1 : Number(failed.values.index)) : editing;
  const editingAddress = editIndex !== null && editIndex >= 0 ? profile.addresses[editIndex] : null;
  const addressValues: AddressValues =
    failed?.form === "address"
      ? Object.fromEntries(
          Object.entries(failed.values)
            .filter(([k]) => k.startsWith("addr."))
            .map(([k, v]) => [k.slice(5), v]),
        )
      : (editingAddress?.address ?? {});
  return (
    <section aria-labelledby="addresses-title" className="panel">
      <h2 id="addresses-title">Addresses</h2>
      <AddressList addresses={profile.addresses} />
      {editIndex === null ? (
        <p>
          <Link to="/account?address=new" className="button secondary">
            Add an address
          </Link>
        </p>
      ) : (
        <div className="address-editor">
          <h3>{editingAddress ? "Edit address" : "New address"}</h3>
          <ErrorSummary problem={addressProblem} id="address-errors" />
          <Form method="post" className="checkout-form">
            <input type="hidden" name="intent" value="address-save" />
            <input type="hidden" name="index" value={editIndex >= 0 ? editIndex : ""} />
            <AddressFields prefix="addr" values={addressValues} countries={countries} problem={addressProblem} withName={false} withPhone={false} />
            <Select
              name="tag"
              label="Use it for"
              options={TAGS.map((t) => [t.value, t.label] as const)}
              defaultValue={failed?.values.tag ?? editingAddress?.tag ?? "SHIPPING"}
            />
            <div className="button-row">
              <button type="submit" className="button primary" disabled={busy("address-save")}>
                {busy("address-save") ? "Saving…" : "Save address"}
              </button>
              <Link to="/account">Cancel</Link>
            </div>
          </Form>
        </div>
      )}
    </section>
  );
}

function AddressList({ addresses }: { addresses: Profile["addresses"] }) {
  if (addresses.length === 0) return <p className="muted">No saved addresses yet. Saved addresses fill in the checkout for you.</p>;
  return (
    <ul className="address-list">
      {addresses.map((a, i) => (
        <li key={`${i}-${a.lines.join("|")}`} className="address-card">
          <p className="badge">{TAGS.find((t) => t.value === a.tag)?.label ?? "Other"}</p>
          <address>
            {a.lines.map((l) => (
              <span key={l}>
                {l}
                <br />
              </span>
            ))}
          </address>
          <div className="address-actions">
            <Link to={`/account?address=${i}`}>
              Edit<span className="visually-hidden"> address {a.lines[0]}</span>
            </Link>
            <Form method="post">
              <input type="hidden" name="intent" value="address-remove" />
              <input type="hidden" name="index" value={i} />
              <button type="submit" className="link-button">
                Remove<span className="visually-hidden"> address {a.lines[0]}</span>
              </button>
            </Form>
          </div>
        </li>
      ))}
    </ul>
  );
}

function PasswordSection({ email, problem, sessionsProblem }: { email: string; problem: Problem | null; sessionsProblem: Problem | null }) {
  const busy = useBusy();
  return (
    <section aria-labelledby="password-title" className="panel">
      <h2 id="password-title">Password and sign-in</h2>
      <ErrorSummary problem={problem} id="password-errors" />
      <Form method="post" className="checkout-form">
        <input type="hidden" name="intent" value="password" />
        <input type="hidden" name="email" value={email} autoComplete="username" />
        <div className="address-fields">
          <Field
            name="currentPassword"
            label="Current password"
            type="password"
            autoComplete="current-password"
            required
            maxLength={1024}
            problem={problem}
          />
          <Field
            name="newPassword"
            label="New password"
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            maxLength={1024}
            hint="At least 8 characters. Changing it signs you out on every other device."
            problem={problem}
          />
        </div>
        <button type="submit" className="button primary" disabled={busy("password")}>
          {busy("password") ? "Changing…" : "Change password"}
        </button>
      </Form>
      <ErrorSummary problem={sessionsProblem} id="sessions-errors" />
      <Form method="post" className="sign-out-others">
        <input type="hidden" name="intent" value="sign-out-others" />
        <p className="muted">Signed in on a device you no longer use, or one that is not yours? End those sessions; this one stays signed in.</p>
        <button type="submit" className="button secondary" disabled={busy("sign-out-others")}>
          {busy("sign-out-others") ? "Signing out…" : "Sign out on all other devices"}
        </button>
      </Form>
    </section>
  );
}
