package carriers

// Returner is a carrier that can make return labels: ReturnService says
// whether its service can be bought as a return (Shipment.Return). The
// quote of a return leaves out every carrier that is not one, and every
// service it refuses, so that a return is only ever sold as one.
type Returner interface {
	ReturnService(service string) bool
}

// CanReturn reports whether c can sell service as a return label, looking
// through the wrappers (instrumentation, budgets, batching), which are all
// Returners answering for the carrier they wrap.
func CanReturn(c Carrier, service string) bool {
	r, ok := c.(Returner)
	return ok && r.ReturnService(service)
}

// ReturnService answers for the wrapped carrier.
func (w *wrapped) ReturnService(service string) bool { return CanReturn(w.c, service) }

// ReturnService answers for the batching carrier's own.
func (b *batched) ReturnService(service string) bool { return CanReturn(b.batchCarrier, service) }
