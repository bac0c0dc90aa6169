/** Identity (members, staff, API keys, OAuth, sessions): what other folders, the pages and the composition root use. */
export { accessTokenAuth, OWNER_KEY_ID, resolveAuth, tokenAuth } from "./api-keys";
export { hasCustomCaptchaVerifier } from "./captcha";
export { defaultClientId, listOAuthClients, MAX_VISITOR_TOKEN_BUDGET, updateClientRequest, updateOAuthClient } from "./clients";
export { clientRoutes } from "./routes/clients";
export {
  CONSOLE_SESSION_TTL_SECONDS,
  consoleSessionAuth,
  endConsoleSession,
  endConsoleSessionsEverywhere,
  startConsoleSession,
} from "./console-sessions";
export {
  approveMember,
  blockMember,
  changePassword,
  getOwnIdentity,
  listMembers,
  login,
  memberContactRead,
  recover,
  recoveryLinkIsLive,
  register,
  rejectMember,
  resendCode,
  sendRecoveryEmail,
  signOutEverywhere,
  unblockMember,
  updateOwnProfile,
  verifyCode,
  type StateResult,
} from "./members";
export { authorize, challengeOf, exchangeToken, retireRefreshToken, revokeRefreshToken, savePendingAuthRequest, validateAuthRequest } from "./oauth";
export { expiredOneTimeTokensDelete, randomSecret } from "./one-time";
export {
  clearSession,
  commitMemberSession,
  readSessionCookie,
  SESSION_COOKIE,
  sessionCookie,
  sessionTokensOf,
  type SessionTokens,
} from "./page-session";
export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "./passwords";
export {
  changePasswordRequest,
  emailSchema,
  identitySettingsPatch,
  loginRequest,
  parseIdentity,
  recoverRequest,
  registerRequest,
  resendRequest,
  sendRecoveryEmailRequest,
  verifyCodeRequest,
} from "./schemas";
export { getIdentitySettings, readIdentitySettings, turnstileSecret, updateIdentitySettings } from "./settings";
export {
  blockStaff,
  createApiKey,
  createApiKeyRequest,
  inviteStaff,
  inviteStaffRequest,
  listApiKeys,
  listStaff,
  resendActivation,
  revokeApiKey,
  unblockStaff,
  updateApiKeyPermissions,
  updateApiKeyRequest,
  updateStaffPermissions,
  updateStaffRequest,
  STAFF_LANDING,
} from "./staff";
export { apiKeys, identities } from "./tables";
export { issueAccessToken, issueTokens, readRefreshToken } from "./tokens";
export { authenticationRoutes } from "./routes/authentication";
export { oauthRoutes } from "./routes/oauth";
export { recoveryRoutes } from "./routes/recovery";
export { HANDOVER_PARAM, postFlowUrlOf, redeemHandover, type Handover } from "./handover";
export { redirectsRoutes } from "./routes/redirects";
export { sessionEndRoutes } from "./routes/session-end";
export { staffRoutes } from "./routes/staff";
export { verificationRoutes } from "./routes/verification";
export { onSignIn, visitorSignedIn } from "./sign-in";
