-- A registered server client's visitor-token budget per address (per 10 minutes); NULL keeps the default.
ALTER TABLE `oauth_clients` ADD `visitor_token_budget` integer;
