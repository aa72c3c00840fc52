-- A page link (/inbox/a/{token}) is addressed to a named approver, who picks the decision on the
-- page: its row has no decision. Webhook links keep theirs (approveUrl, rejectUrl).
ALTER TABLE "approval_tokens" ALTER COLUMN "decision" DROP NOT NULL;
