package ui

import (
	"net/http"
	"strconv"

	"github.com/shipd-dev/shipd/accounts"
	"github.com/shipd-dev/shipd/shipping"
)

// The account page: the shipping balance and ledger of the mode looked at,
// the payment method on file, the users, and the audit log (who changed
// which token or endpoint, when, from where).

type accountPage struct {
	Account accounts.Account
	Users   []accounts.User
	Balance int64
	Ledger  []shipping.LedgerEntry
	Audit   []accounts.AuditEntry
	// OlderAudit is the cursor of the next page of the audit log, 0 for none.
	OlderAudit int64
	// AuditPaged: this is not the audit log's first page.
	AuditPaged bool
}

const auditPerPage = 50

func (u *UI) accountPage(w http.ResponseWriter, r *http.Request, c accounts.Caller) error {
	ctx := r.Context()
	account, err := u.accounts.Account(ctx, c.AccountID)
	if err != nil {
		return err
	}
	users, err := u.accounts.Users(ctx, c)
	if err != nil {
		return err
	}
	ledger, balance, err := u.shipping.Ledger(ctx, c)
	if err != nil {
		return err
	}
	// Newest first: what just happened is what one looks for.
	for i, j := 0, len(ledger)-1; i < j; i, j = i+1, j-1 {
		ledger[i], ledger[j] = ledger[j], ledger[i]
	}
	before, _ := strconv.ParseInt(r.URL.Query().Get("audit_before"), 10, 64)
	audit, more, err := u.accounts.AuditLog(ctx, c, before, auditPerPage)
	if err != nil {
		return err
	}
	page := accountPage{Account: account, Users: users, Balance: balance, Ledger: ledger, Audit: audit, AuditPaged: before > 0}
	if more && len(audit) > 0 {
		page.OlderAudit = audit[len(audit)-1].Seq
	}
	u.render(w, r, http.StatusOK, "account", view{Title: "Account", Section: "account", Caller: &c, Page: page})
	return nil
}
