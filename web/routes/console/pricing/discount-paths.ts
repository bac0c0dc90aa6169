/** Where the discount rule form's inputs sit in the service's request: the rule, its one discount, its trigger. */
export const R = "discountRule";
export const V = `${R}.discounts.values[0]`;
export const T = `${R}.trigger`;
