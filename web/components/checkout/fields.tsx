import type { Problem } from "#web/components/ui/form";
import { Field, Select } from "#web/components/ui/form";

/** The postal address fields of the checkout and account pages, on the form kit (web/components/ui/form.tsx). */

export interface AddressValues {
  firstName?: string;
  lastName?: string;
  phone?: string;
  addressLine?: string;
  addressLine2?: string;
  city?: string;
  postalCode?: string;
  country?: string;
  subdivision?: string;
}

/** Name and postal address fields, named `<prefix>.<field>` (e.g. `ship.city`). */
export function AddressFields({
  prefix,
  values,
  countries,
  problem,
  required = true,
  withPhone = true,
  withName = true,
}: {
  prefix: string;
  values: AddressValues;
  countries: { code: string; name: string }[];
  problem?: Problem | null;
  required?: boolean;
  withPhone?: boolean;
  withName?: boolean;
}) {
  const n = (f: string) => `${prefix}.${f}`;
  // Autofill sections keep shipping and billing addresses apart.
  const ac = (token: string) => `section-${prefix} ${prefix === "bill" ? "billing" : "shipping"} ${token}`;
  return (
    <div className="address-fields">
      {withName && (
        <>
          <Field
            name={n("firstName")}
            label="First name"
            autoComplete={ac("given-name")}
            defaultValue={values.firstName}
            required={required}
            maxLength={100}
            problem={problem}
          />
          <Field
            name={n("lastName")}
            label="Last name"
            autoComplete={ac("family-name")}
            defaultValue={values.lastName}
            required={required}
            maxLength={100}
            problem={problem}
          />
        </>
      )}
      <Field
        name={n("addressLine")}
        label="Address"
        autoComplete={ac("address-line1")}
        defaultValue={values.addressLine}
        required={required}
        maxLength={200}
        problem={problem}
        className="wide"
      />
      <Field
        name={n("addressLine2")}
        label="Apartment, suite, etc. (optional)"
        autoComplete={ac("address-line2")}
        defaultValue={values.addressLine2}
        maxLength={200}
        problem={problem}
        className="wide"
      />
      <Field
        name={n("city")}
        label="City"
        autoComplete={ac("address-level2")}
        defaultValue={values.city}
        required={required}
        maxLength={100}
        problem={problem}
      />
      <Field
        name={n("postalCode")}
        label="Postal code"
        autoComplete={ac("postal-code")}
        defaultValue={values.postalCode}
        required={required}
        maxLength={20}
        problem={problem}
      />
      <Select
        name={n("country")}
        label="Country"
        autoComplete={ac("country")}
        defaultValue={values.country ?? ""}
        required={required}
        placeholder="Choose a country"
        options={countries.map((c) => [c.code, c.name] as const)}
        problem={problem}
      />
      <Field
        name={n("subdivision")}
        label="State or region (optional)"
        autoComplete={ac("address-level1")}
        defaultValue={values.subdivision}
        maxLength={50}
        hint="A code such as CA or US-CA."
        problem={problem}
      />
      {withPhone && (
        <Field
          name={n("phone")}
          label="Phone (optional)"
          type="tel"
          autoComplete={ac("tel")}
          defaultValue={values.phone}
          maxLength={50}
          problem={problem}
        />
      )}
    </div>
  );
}
