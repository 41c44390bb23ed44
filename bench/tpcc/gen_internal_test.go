package tpcc

import (
	"math"
	"testing"
)

func near(t *testing.T, what string, n, of int, want, tol float64) {
	t.Helper()
	if got := float64(n) / float64(of); math.Abs(got-want) > tol {
		t.Errorf("%s: %.4f (%d of %d), want %.4f ± %.4f", what, got, n, of, want, tol)
	}
}

func TestNewOrderParametersFollowTheSpecification(t *testing.T) {
	w, err := New(Options{Warehouses: 4, Districts: 10, Customers: 3000, Items: 1000, Orders: 30})
	if err != nil {
		t.Fatal(err)
	}
	g := w.Generator("sqlite", 1, 0).(*generator)
	const n = 20_000
	var rollbacks, lines, remote, notAllLocal int
	for range n {
		p := g.newOrderParams()
		if len(p.Items) < 5 || len(p.Items) > 15 || len(p.Supply) != len(p.Items) || len(p.Qty) != len(p.Items) {
			t.Fatalf("%d order lines: want 5..15", len(p.Items))
		}
		if p.W < 1 || p.W > 4 || p.D < 1 || p.D > 10 || p.C < 1 || p.C > 3000 {
			t.Fatalf("warehouse %d, district %d, customer %d out of range", p.W, p.D, p.C)
		}
		seen := map[int]bool{}
		local := true
		for i, it := range p.Items {
			if p.Rollback && i == len(p.Items)-1 {
				if it != 1001 {
					t.Fatalf("rollback's last item %d, want the unused 1001", it)
				}
			} else if it < 1 || it > 1000 || seen[it] {
				t.Fatalf("item %d out of range or repeated in %v", it, p.Items)
			}
			seen[it] = true
			if q := p.Qty[i]; q < 1 || q > 10 {
				t.Fatalf("quantity %d", q)
			}
			if p.Supply[i] != p.W {
				remote++
				local = false
			}
		}
		if local != p.AllLocal {
			t.Fatalf("O_ALL_LOCAL %v for supply warehouses %v of home %d", p.AllLocal, p.Supply, p.W)
		}
		if !local {
			notAllLocal++
		}
		if p.Rollback {
			rollbacks++
		}
		lines += len(p.Items)
	}
	near(t, "rolled back NewOrders", rollbacks, n, 0.01, 0.003)
	near(t, "remote order lines", remote, lines, 0.01, 0.003)
	near(t, "order lines per order", lines, n, 10, 0.1)

	one, err := New(Options{Warehouses: 1, Customers: 30, Items: 100, Orders: 30})
	if err != nil {
		t.Fatal(err)
	}
	g = one.Generator("sqlite", 1, 0).(*generator)
	for range 2000 {
		if p := g.newOrderParams(); !p.AllLocal {
			t.Fatalf("a remote order line with one warehouse: %+v", p)
		}
	}
}

func TestPaymentParametersFollowTheSpecification(t *testing.T) {
	w, err := New(Options{Warehouses: 3, Districts: 10, Customers: 3000, Items: 1000, Orders: 30})
	if err != nil {
		t.Fatal(err)
	}
	g := w.Generator("postgres", 2, 5).(*generator)
	const n = 20_000
	var remote, byName int
	names := map[string]bool{}
	hids := map[string]bool{}
	for range n {
		g.seq++ // as Next does
		p := g.paymentParams()
		if p.Cents < 100 || p.Cents > 500_000 {
			t.Fatalf("amount %d cents, want 1.00..5000.00", p.Cents)
		}
		if p.CW != p.W {
			remote++
		} else if p.CD != p.D {
			t.Fatalf("local customer of another district: %+v", p)
		}
		if p.C == 0 {
			byName++
			names[p.CLast] = true
		} else if p.C < 1 || p.C > 3000 || p.CLast != "" {
			t.Fatalf("customer %d / %q", p.C, p.CLast)
		}
		if hids[p.HID] {
			t.Fatalf("history id %s repeated", p.HID)
		}
		hids[p.HID] = true
	}
	near(t, "remote customers", remote, n, 0.15, 0.01)
	near(t, "customers by last name", byName, n, 0.60, 0.01)
	if len(names) < 500 {
		t.Errorf("%d distinct last names drawn, want most of the 1,000", len(names))
	}
	g6 := w.Generator("postgres", 2, 6).(*generator)
	g6.seq++
	other := g6.paymentParams()
	if hids[other.HID] {
		t.Errorf("clients 5 and 6 share history id %s", other.HID)
	}
}

func TestLastNameSpellsTheSyllables(t *testing.T) {
	for n, want := range map[int]string{0: "BARBARBAR", 371: "PRICALLYOUGHT", 999: "EINGEINGEING", 40: "BARPRESBAR"} {
		if got := LastName(n); got != want {
			t.Errorf("LastName(%d) = %s, want %s", n, got, want)
		}
	}
}
