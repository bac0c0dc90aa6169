/** The shop's emails: what other folders, the pages and the composition root use. */
export { EMAIL_STATUSES, EMAIL_TEMPLATES, getEmail, listEmails, type EmailListFilters } from "./outbox";
export { retryDueEmails, retryEmail } from "./retries";
export { emailOutcomes, emailStatement, findSubscription, sendEmail, unsubscribe } from "./send";
export { emails } from "./tables";
