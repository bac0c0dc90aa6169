import { Form } from "react-router";
import { PERMISSION_LABELS, type Permission } from "#worker/platform/context";
import { ErrorSummary, Field, fieldId, Select } from "#web/components/ui/form";
import { DataTable, type Column } from "#web/components/ui/table";
import { Badge } from "./badge";
import { AskFirstForm } from "./confirm";
import { PermissionChecks, PermissionsForm } from "./permissions";
import { PostButton, SubmitButton } from "./post-button";
import type { Problem } from "#web/components/ui/form";

/**
 * Settings' people and keys: the shop's members, the owner's staff and the store's API keys, each a table with its
 * row actions, and the forms that invite staff and create keys (inputs named by the services' request fields).
 */

/** A row's actions column, with a hidden heading, for someone who may use them. */
function actionsColumn<T>(show: boolean, cell: (row: T) => React.ReactNode): Column<T>[] {
  return show ? [{ header: <span className="visually-hidden">Actions</span>, cell }] : [];
}

/** What someone or a key may change: everything for an owner, else their permissions in words. */
function MayChange({ permissions, none }: { permissions: readonly Permission[]; none: string }) {
  if (!permissions.length) return <span className="console-muted">{none}</span>;
  return (
    <ul className="console-plain-list">
      {permissions.map((p) => (
        <li key={p}>{PERMISSION_LABELS[p]}</li>
      ))}
    </ul>
  );
}

export interface MemberRow {
  id: string;
  email: string;
  name: string;
  status: string;
  waitingForApproval: boolean;
  waitingForEmail: boolean;
  createdDate: string;
}

/** A member's state: active, blocked, or waiting (for approval, for their email, or both). */
function MemberState({ m }: { m: MemberRow }) {
  if (m.status === "ACTIVE") return <Badge tone="good">Active</Badge>;
  if (m.status === "BLOCKED") return <Badge tone="bad">Blocked</Badge>;
  if (m.status !== "PENDING") return null;
  return (
    <>
      <Badge tone="warn">{m.waitingForApproval ? "Waiting for approval" : "Confirming email"}</Badge>
      {m.waitingForApproval && m.waitingForEmail && <div className="console-muted">and confirming their email</div>}
    </>
  );
}

/** What may be done with a member: approve or reject one waiting for approval, block or unblock anyone else. */
function MemberActions({ m, busy }: { m: MemberRow; busy: boolean }) {
  const waiting = m.status === "PENDING" && m.waitingForApproval;
  const button = (intent: string, label: string, danger = false) => (
    <PostButton key={intent} intent={intent} fields={{ id: m.id }} danger={danger} disabled={busy} label={`${label} ${m.email}`}>
      {label}
    </PostButton>
  );
  return (
    <div className="console-actions">
      {waiting && button("approve", "Approve")}
      {waiting && button("reject", "Reject", true)}
      {m.status !== "BLOCKED" && !waiting && button("block", "Block", true)}
      {m.status === "BLOCKED" && button("unblock", "Unblock")}
    </div>
  );
}

/** The shop's members, newest first. */
export function MembersTable({ members, canManage, busy }: { members: MemberRow[]; canManage: boolean; busy: boolean }) {
  const columns: Column<MemberRow>[] = [
    {
      header: "Member",
      cell: (m) => (
        <>
          {m.name || m.email}
          {m.name && <div className="console-muted">{m.email}</div>}
        </>
      ),
    },
    { header: "Status", cell: (m) => <MemberState m={m} /> },
    { header: "Joined", cell: (m) => m.createdDate.slice(0, 10) },
    ...actionsColumn<MemberRow>(canManage, (m) => <MemberActions m={m} busy={busy} />),
  ];
  return <DataTable caption="Members, newest first" rows={members} rowKey={(m) => m.id} columns={columns} />;
}

export interface StaffRow {
  id: string;
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  role: string;
  status: string;
  permissions: Permission[];
}

/** What the owner may do with a staff member: resend an invitation, let a removed one back in, or remove. */
function StaffActions({ s }: { s: StaffRow }) {
  if (s.role !== "STAFF") return null;
  return (
    <>
      {s.status === "PENDING" && (
        <PostButton intent="resend" fields={{ id: s.id }}>
          Resend invitation
        </PostButton>
      )}
      {s.status === "BLOCKED" ? (
        <PostButton intent="unblock" fields={{ id: s.id }}>
          Let back in<span className="visually-hidden"> {s.email}</span>
        </PostButton>
      ) : (
        <AskFirstForm question={`Remove ${s.email}? They will be signed out and can no longer sign in.`}>
          <input type="hidden" name="intent" value="block" />
          <input type="hidden" name="id" value={s.id} />
          <button type="submit" className="console-button danger">
            Remove
          </button>
        </AskFirstForm>
      )}
    </>
  );
}

/** The owner and the staff, with what each may change (a form per staff member). */
export function StaffTable({ staff, busy }: { staff: StaffRow[]; busy: boolean }) {
  const columns: Column<StaffRow>[] = [
    {
      header: "Person",
      cell: (s) => (
        <>
          {[s.firstName, s.lastName].filter(Boolean).join(" ") || s.email}
          <div className="console-muted">{s.email}</div>
        </>
      ),
    },
    {
      header: "Status",
      cell: (s) => (s.role === "OWNER" ? "Owner" : s.status === "PENDING" ? "Invited" : s.status === "BLOCKED" ? "Removed" : "Active"),
    },
    {
      header: "May change",
      cell: (s) =>
        s.role === "OWNER" ? (
          "Everything"
        ) : (
          <PermissionsForm id={s.id} name={s.email} checked={s.permissions} busy={busy} disabled={s.status === "BLOCKED"} />
        ),
    },
    ...actionsColumn<StaffRow>(true, (s) => <StaffActions s={s} />),
  ];
  return <DataTable caption="Owner and staff" rows={staff} rowKey={(s) => s.id} columns={columns} />;
}

export interface ApiKeyRow {
  id: string;
  name: string;
  prefix?: string | null;
  role: string;
  permissions: Permission[];
  createdDate: string;
  revokedDate?: string | null;
}

const date = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

/** Revoke, asked first (the browser's dialog, or the action's question without JavaScript). */
function RevokeButton({ k }: { k: ApiKeyRow }) {
  return (
    <AskFirstForm question={`Revoke “${k.name}”? Programs using it are refused from their next request.`}>
      <input type="hidden" name="intent" value="revoke" />
      <input type="hidden" name="id" value={k.id} />
      <input type="hidden" name="name" value={k.name} />
      <input type="hidden" name="confirm" value="" />
      <button type="submit" className="console-button danger" aria-label={`Revoke ${k.name}`}>
        Revoke
      </button>
    </AskFirstForm>
  );
}

/** Every API key made (never a key itself): what it may change, and for the owner its permissions form and Revoke. */
export function ApiKeysTable({ apiKeys, isOwner, busy }: { apiKeys: ApiKeyRow[]; isOwner: boolean; busy: boolean }) {
  const columns: Column<ApiKeyRow>[] = [
    { header: "Name", cell: (k) => k.name },
    { header: "Starts with", cell: (k) => (k.prefix ? <code>{k.prefix}…</code> : <span className="console-muted">not recorded</span>) },
    { header: "Role", cell: (k) => (k.role === "OWNER" ? "Owner" : "Staff") },
    {
      header: "May change",
      cell: (k) =>
        k.role === "OWNER" ? (
          "Everything"
        ) : isOwner && !k.revokedDate ? (
          <PermissionsForm id={k.id} name={k.name} checked={k.permissions} busy={busy} />
        ) : (
          <MayChange permissions={k.permissions} none="Nothing (reads only)" />
        ),
    },
    { header: "Created", cell: (k) => date(k.createdDate) },
    { header: "Status", cell: (k) => (k.revokedDate ? <Badge tone="bad">Revoked {date(k.revokedDate)}</Badge> : <Badge tone="good">Active</Badge>) },
    ...actionsColumn<ApiKeyRow>(isOwner, (k) => !k.revokedDate && <RevokeButton k={k} />),
  ];
  return <DataTable caption="API keys" rows={apiKeys} rowKey={(k) => k.id} columns={columns} />;
}

/** A create form of the settings pages: its intent, problem summary, fields and the permissions it grants. */
function CreateForm(props: {
  intent: string;
  problem: Problem | null | undefined;
  legend: string;
  button: string;
  busy: boolean;
  className?: string;
  /** Leave checking to the service (no browser checks first). */
  noValidate?: boolean;
  children: React.ReactNode;
}) {
  return (
    <Form method="post" className={props.className ?? "console-form"} noValidate={props.noValidate}>
      <input type="hidden" name="intent" value={props.intent} />
      <ErrorSummary problem={props.problem} fieldIds={(name) => (name.startsWith("permissions") ? undefined : fieldId(name))} />
      {props.children}
      <fieldset>
        <legend>{props.legend}</legend>
        <PermissionChecks />
      </fieldset>
      <SubmitButton busy={props.busy}>{props.button}</SubmitButton>
    </Form>
  );
}

/** What a create form shows: the refusal of its last post and what was typed. */
interface NewFormProps {
  problem: Problem | null | undefined;
  values: Record<string, string> | undefined;
  busy: boolean;
}

/** Invite a staff member by email (intent invite), with what they may change. */
export function InviteForm({ problem, values, busy }: NewFormProps) {
  const f = problem?.fields ?? {};
  return (
    <CreateForm intent="invite" problem={problem} legend="May change" button="Send invitation" busy={busy}>
      <Field name="email" label="Email" type="email" required maxLength={254} defaultValue={values?.email} error={f.email} />
      <div className="console-row">
        <Field name="firstName" label="First name" maxLength={100} defaultValue={values?.firstName} error={f.firstName} />
        <Field name="lastName" label="Last name" maxLength={100} defaultValue={values?.lastName} error={f.lastName} />
      </div>
    </CreateForm>
  );
}

/** Create an API key (intent create): its name, role and, for a Staff key, what it may change. */
export function CreateKeyForm({ problem, values, busy }: NewFormProps) {
  const f = problem?.fields ?? {};
  return (
    <CreateForm
      intent="create"
      problem={problem}
      legend="A Staff key may change"
      button="Create key"
      busy={busy}
      className="console-form settings-create"
      noValidate
    >
      <div className="console-row">
        <Field
          name="name"
          label="Name"
          required
          maxLength={100}
          defaultValue={values?.name}
          error={f.name}
          hint="What it is for, e.g. “Warehouse sync”."
        />
        <Select
          name="role"
          label="Role"
          defaultValue={values?.role ?? "STAFF"}
          error={f.role}
          options={[
            ["STAFF", "Staff: merchant work"],
            ["OWNER", "Owner: everything"],
          ]}
        />
      </div>
    </CreateForm>
  );
}
