"""Short document strings that prose does not provide: names, addresses, dates, money, codes, form fields,
invoice and receipt lines, headings and list markers. Each function takes a `random.Random` and returns text
that only uses vocabulary characters.
"""

import random
from collections.abc import Callable

from ..vocab import CHARSET
from . import corpus

FIRST_NAMES = (
    "James Mary Robert Patricia John Jennifer Michael Linda David Elizabeth William Barbara Richard Susan Joseph "
    "Jessica Thomas Sarah Charles Karen Daniel Nancy Matthew Lisa Anthony Betty Mark Margaret Paul Sandra Steven "
    "Ashley Andrew Emily Kenneth Donna Joshua Michelle Kevin Carol Brian Amanda George Melissa Timothy Deborah "
    "Hans Ingrid Jürgen Renée François Zoë José Sören Lena Pierre Marco Giulia Ahmed Fatima Wei Yuki Priya Olga"
).split()
LAST_NAMES = (
    "Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez Wilson "
    "Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis "
    "Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall "
    "Müller Schmidt Dubois Lefèvre Rossi Bianchi Novak Kowalski Jensen Larsen O'Brien McCarthy Fischer Weber"
).split()
STREETS = (
    "Main Oak Pine Maple Cedar Elm Washington Lake Hill Park Church Market High Mill Station Victoria King "
    "Queen Bridge River Spring Chestnut Walnut Highland Sunset Railroad Harbor"
).split()
STREET_TYPES = ("St.", "Street", "Ave.", "Avenue", "Rd.", "Road", "Blvd.", "Lane", "Drive", "Dr.", "Way", "Court")
CITIES = (
    ("Springfield", "IL", "62701"), ("Portland", "OR", "97205"), ("Austin", "TX", "78701"), ("Denver", "CO", "80202"),
    ("Boston", "MA", "02108"), ("Seattle", "WA", "98101"), ("Columbus", "OH", "43215"), ("Madison", "WI", "53703"),
    ("Raleigh", "NC", "27601"), ("Tucson", "AZ", "85701"), ("Albany", "NY", "12207"), ("Savannah", "GA", "31401"),
)
FOREIGN_CITIES = ("London EC1A 1BB", "75008 Paris", "10115 Berlin", "1010 Wien", "8001 Zürich", "00184 Roma",
                  "Dublin 2", "1012 AB Amsterdam", "28013 Madrid", "Toronto, ON M5H 2N2", "50667 Köln",
                  "1204 Genève", "Montréal, QC H2Y 1C6", "29001 Málaga", "25000 Besançon", "Logroño, España")
COMPANY_SUFFIXES = ("Inc.", "LLC", "Ltd.", "GmbH", "& Co.", "Corporation", "Group", "S.A.", "& Sons", "Partners LLP")
COMPANY_WORDS = ("Acme Global Northern Pacific United Atlas Summit Pioneer Vertex Harbor Meridian Liberty "
                 "Sterling Evergreen Keystone Crescent Apex Horizon Granite Beacon").split()
TRADES = ("Consulting Logistics Supplies Engineering Holdings Foods Insurance Dental Legal Services Printing "
          "Software Builders Hardware Pharmacy Bakery Motors Electric Textiles").split()
MONTHS = ("January February March April May June July August September October November December").split()
WEEKDAYS = ("Monday Tuesday Wednesday Thursday Friday Saturday Sunday").split()
PRODUCTS = (
    "Paper A4 80g", "Toner cartridge", "Office chair", "Desk lamp", "USB-C cable 2m", "Coffee beans 1kg",
    "Consulting hours", "Shipping & handling", "Maintenance fee", "Software license", "Printer paper",
    "Stapler", "Envelopes C5", "Whiteboard markers", "Monitor 24\"", "Keyboard", "Labor", "Parts",
    "Screws M4x20", "Cleaning service", "Annual subscription", "Travel expenses", "Hotel (2 nights)",
    "Catering", "Design work", "Installation", "Freight", "Postage", "Bananas", "Whole milk 1L", "Bread",
    "Eggs (12)", "Orange juice", "Cheddar 200g", "Tomatoes", "Chicken breast", "Olive oil", "Rice 2kg",
)
RECEIPT_ITEMS = ("MILK 2% 1GAL", "BREAD WHT", "EGGS LG 12CT", "BANANAS", "COFFEE", "TAX", "SUBTOTAL", "TOTAL",
                 "CASH", "CHANGE", "VISA ****1234", "DISCOUNT", "BAG FEE", "SODA 2L", "CHIPS", "APPLES GALA",
                 "YOGURT", "BUTTER", "PAPER TOWEL", "DETERGENT", "TIP", "GRATUITY 18%")
FIELD_LABELS = ("Name", "Date", "Invoice No.", "Invoice Date", "Due Date", "Account", "Customer ID", "Phone",
                "Fax", "Email", "Address", "Reference", "Order No.", "PO Number", "Amount Due", "Total",
                "Subtotal", "Tax", "VAT", "Balance", "Signature", "Page", "Policy No.", "Claim No.", "Tel.",
                "Ship to", "Bill to", "Terms", "Period", "Description", "Qty", "Unit Price", "Amount")
SHORT_CROPS = ("Total", "Subtotal", "Date", "Name", "Qty", "No.", "Page", "Amount", "Notes", "Signature", "Yes",
               "No", "N/A", "TOTAL", "Description", "Price", "Tax", "Paid", "Due", "Fig. 3", "Table 2", "Note:",
               "Approved", "CONFIDENTIAL", "Draft", "Ref.", "Item", "Units", "%", "§ 4", "(a)", "(iii)", "*", "—")
HEADING_WORDS = ("Introduction Summary Background Scope Definitions Terms Conditions Payment Delivery Warranty "
                 "Liability Termination Confidentiality Results Discussion Methods Appendix Overview Notes "
                 "Schedule Obligations Remedies Miscellaneous Acknowledgements References Conclusion").split()
# (prefix, suffix) and how often documents in English print it: dollars and bare numbers far more often than
# yen (an even draw made the model read "$" as "¥"); "RM" is what Malaysian receipts print.
CURRENCIES = {("$", ""): 30, ("", ""): 25, ("€", ""): 8, ("£", ""): 7, ("RM", ""): 6, ("", " €"): 5,
              ("", " USD"): 5, ("", " EUR"): 4, ("¥", ""): 2}


def person(rng: random.Random) -> str:
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    style = rng.random()
    if style < 0.5:
        return f"{first} {last}"
    if style < 0.7:
        return f"{last}, {first}"
    if style < 0.85:
        return f"{rng.choice(('Mr.', 'Ms.', 'Mrs.', 'Dr.', 'Prof.'))} {first} {last}"
    return f"{first[0]}. {last}"


def company(rng: random.Random) -> str:
    if rng.random() < 0.4:
        return f"{rng.choice(LAST_NAMES)} {rng.choice(TRADES)} {rng.choice(COMPANY_SUFFIXES)}"
    return f"{rng.choice(COMPANY_WORDS)} {rng.choice(TRADES)} {rng.choice(COMPANY_SUFFIXES)}"


def street(rng: random.Random) -> str:
    line = f"{rng.randint(1, 9999)} {rng.choice(STREETS)} {rng.choice(STREET_TYPES)}"
    if rng.random() < 0.2:
        line += f", {rng.choice(('Suite', 'Apt.', 'Unit', 'Floor'))} {rng.randint(1, 40)}{rng.choice(('', 'B', 'A'))}"
    return line


def city_line(rng: random.Random) -> str:
    if rng.random() < 0.25:
        return rng.choice(FOREIGN_CITIES)
    city, state, zip_code = rng.choice(CITIES)
    return f"{city}, {state} {zip_code}"


DATE_STYLES = 10


def date(rng: random.Random, style: int | None = None) -> str:
    """A date in one of DATE_STYLES spellings (`style` fixes it, e.g. for a whole table column)."""
    y, m, d = rng.randint(1985, 2030), rng.randint(1, 12), rng.randint(1, 28)
    formats = (
        f"{m:02d}/{d:02d}/{y}", f"{d:02d}.{m:02d}.{y}", f"{y}-{m:02d}-{d:02d}", f"{MONTHS[m - 1]} {d}, {y}",
        f"{d} {MONTHS[m - 1]} {y}", f"{d}-{MONTHS[m - 1][:3]}-{y % 100:02d}", f"{MONTHS[m - 1][:3]}. {d}, {y}",
        f"{m}/{d}/{y % 100:02d}", f"{WEEKDAYS[rng.randrange(7)]}, {MONTHS[m - 1]} {d}, {y}", f"{d}/{m}/{y}",
    )
    return formats[rng.randrange(DATE_STYLES) if style is None else style]


def time_of_day(rng: random.Random) -> str:
    h, m = rng.randint(0, 23), rng.randint(0, 59)
    return rng.choice((f"{h:02d}:{m:02d}", f"{(h % 12) or 12}:{m:02d} {'AM' if h < 12 else 'PM'}",
                       f"{h:02d}:{m:02d}:{rng.randint(0, 59):02d}"))


def currency(rng: random.Random) -> tuple[str, str]:
    return rng.choices(list(CURRENCIES), weights=list(CURRENCIES.values()))[0]


def number(rng: random.Random, european: bool = False, magnitude: float | None = None,
           decimals: int | None = None) -> str:
    """Financial statements print tenths ("59.0") and whole numbers as often as cents."""
    magnitude = magnitude or rng.choice((10, 100, 1000, 10000, 1000000))
    decimals = rng.choices((0, 1, 2), weights=(3, 3, 4))[0] if decimals is None else decimals
    value = rng.random() * magnitude
    text = f"{value:,.{decimals}f}" if rng.random() < 0.85 else f"{value:.{decimals}f}"
    if european:
        text = text.replace(",", " ").replace(".", ",").replace(" ", ".")
    return text


def amount(rng: random.Random, money: tuple[str, str] | None = None, magnitude: float | None = None,
           decimals: int | None = None) -> str:
    """Money; `money` (prefix, suffix), `magnitude` and `decimals` fix the style, e.g. for a table column."""
    prefix, suffix = money or currency(rng)
    european = suffix in (" €", " EUR") or prefix == "€"
    text = number(rng, european, magnitude, decimals)
    if rng.random() < 0.08:
        text = f"({text})" if rng.random() < 0.5 else f"-{text}"
    spacer = " " if prefix and rng.random() < 0.3 else ""
    return f"{prefix}{spacer}{text}{suffix}"


def quantity(rng: random.Random) -> str:
    return rng.choice((str(rng.randint(1, 24)), str(rng.randint(1, 500)), f"{rng.uniform(0.1, 20):.2f}",
                       f"{rng.randint(1, 12)} pcs", f"{rng.uniform(0.2, 5):.3f} kg"))


def percent(rng: random.Random) -> str:
    return rng.choice((f"{rng.uniform(0, 100):.1f}%", f"{rng.randint(0, 100)}%", f"{rng.uniform(-20, 20):+.2f}%",
                       f"{rng.uniform(0, 30):.1f} %"))


def identifier(rng: random.Random, style: int | None = None) -> str:
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"

    def chunk(n: int, alphabet: str) -> str:
        return "".join(rng.choice(alphabet) for _ in range(n))

    kinds = (
        lambda: f"INV-{rng.randint(2015, 2030)}-{rng.randint(1, 99999):05d}",
        lambda: f"#{rng.randint(1000, 999999)}",
        lambda: f"{chunk(2, letters)}{rng.randint(100000, 9999999)}",
        lambda: f"{chunk(3, letters)}-{chunk(4, '0123456789')}-{chunk(2, letters + '0123456789')}",
        lambda: f"PO {rng.randint(10000, 99999)}",
        lambda: f"{chunk(4, '0123456789')} {chunk(4, '0123456789')} {chunk(4, '0123456789')} {chunk(4, '0123456789')}",
        lambda: f"DE{chunk(2, '0123456789')} {chunk(4, '0123456789')} {chunk(4, '0123456789')} {chunk(4, '0123456789')} {chunk(2, '0123456789')}",
        lambda: f"ISBN 978-{rng.randint(0, 9)}-{rng.randint(100, 999)}-{rng.randint(10000, 99999)}-{rng.randint(0, 9)}",
        lambda: f"{rng.randint(100, 999)}-{rng.randint(10, 99)}-{rng.randint(1000, 9999)}",
        lambda: f"Ref. {chunk(2, letters)}/{rng.randint(1, 999)}/{rng.randint(10, 30)}",
    )
    return kinds[rng.randrange(len(kinds)) if style is None else style % len(kinds)]()


def phone(rng: random.Random) -> str:
    return rng.choice((f"({rng.randint(200, 999)}) {rng.randint(200, 999)}-{rng.randint(0, 9999):04d}",
                       f"+1 {rng.randint(200, 999)} {rng.randint(200, 999)} {rng.randint(0, 9999):04d}",
                       f"+44 20 {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}",
                       f"+49 (0)30 {rng.randint(100000, 9999999)}",
                       f"{rng.randint(200, 999)}.{rng.randint(200, 999)}.{rng.randint(0, 9999):04d}"))


def email(rng: random.Random) -> str:
    user = rng.choice((rng.choice(FIRST_NAMES).lower(), f"{rng.choice(FIRST_NAMES)[0]}.{rng.choice(LAST_NAMES)}".lower(),
                       rng.choice(("info", "billing", "support", "sales", "office"))))
    domain = rng.choice(COMPANY_WORDS).lower() + rng.choice((".com", ".org", ".net", ".de", ".co.uk", ".io"))
    return _ascii(f"{user}@{domain}")


def url(rng: random.Random) -> str:
    return _ascii(rng.choice(("https://", "http://", "www.", "")) + rng.choice(COMPANY_WORDS).lower()
                  + rng.choice((".com", ".org", ".net")) + rng.choice(("", "/", "/contact", "/terms", "/invoice?id=42")))


def _ascii(text: str) -> str:
    return text.translate(str.maketrans("üöäéèëçøß", "uoaeeecos"))


def _terms(rng: random.Random) -> str:
    return rng.choice(("Net 30", "Net 15", "Due on receipt", "2% 10, Net 30", "Prepaid", "COD", "EOM"))


def _field_value(label: str) -> Callable[[random.Random], str]:
    """What goes after a form label: dates after date labels, money after money labels, and so on."""
    if "Date" in label or label in ("Period",):
        return date
    if label in ("Amount Due", "Total", "Subtotal", "Tax", "VAT", "Balance", "Unit Price", "Amount"):
        return amount
    if label in ("Name", "Signature"):
        return person
    if label in ("Phone", "Fax", "Tel."):
        return phone
    if label == "Email":
        return email
    if label in ("Address", "Ship to", "Bill to"):
        return lambda r: f"{street(r)}, {city_line(r)}"
    if label == "Qty":
        return quantity
    if label == "Page":
        return lambda r: f"{r.randint(1, 9)} of {r.randint(9, 20)}"
    if label == "Terms":
        return _terms
    if label == "Description":
        return lambda r: r.choice(PRODUCTS)
    return identifier


def field(rng: random.Random) -> str:
    """A form field with its value, e.g. 'Invoice No.: INV-2021-00042'."""
    label = rng.choice(FIELD_LABELS)
    return f"{label}{rng.choice((':', ':', ':', '', ' -'))} {_field_value(label)(rng)}"


def value(rng: random.Random) -> str:
    """A lone value as it appears in a table cell or a form box."""
    return rng.choice((amount, date, identifier, quantity, percent, time_of_day, phone))(rng)


def measurement(rng: random.Random) -> str:
    """Quantities with the typographic signs documents use: degrees, plus-minus, micro, fractions, powers."""
    kinds = (
        lambda: f"{rng.uniform(-20, 40):.1f} °C",
        lambda: f"{rng.randint(0, 359)}°",
        lambda: f"{rng.uniform(1, 100):.1f} ± {rng.uniform(0.1, 5):.1f}",
        lambda: f"{rng.randint(1, 500)} µm",
        lambda: f"{rng.randint(2, 12)} × {rng.randint(2, 12)}",
        lambda: f"{rng.randint(10, 900)} m²",
        lambda: f"{rng.randint(1, 90)} cm³",
        lambda: f"{rng.randint(1, 4)} {rng.choice('½¼¾')} in.",
        lambda: f"{rng.randint(10, 99)} ÷ {rng.randint(2, 9)}",
        lambda: f"§ {rng.randint(1, 40)}.{rng.randint(1, 9)}",
        lambda: f"¶ {rng.randint(1, 30)}",
        lambda: "x¹ + x² + x³",
        lambda: f"{rng.randint(1, 99)}¢",
        lambda: f"{rng.choice(COMPANY_WORDS)}® {rng.choice(TRADES)}",
        lambda: f"{rng.choice(COMPANY_WORDS)}™",
        lambda: f"{rng.choice(('Next', 'Back', 'See page'))} {rng.choice('→←')}",
        lambda: f"Temp. {rng.randint(15, 30)}°C · RH {rng.randint(20, 80)}%",
    )
    return kinds[rng.randrange(len(kinds))]()


def typographic(text: str) -> str:
    """Straight quotes, double hyphens and triple dots as a typesetter prints them."""
    out = []
    for i, ch in enumerate(text):
        before = text[i - 1] if i else " "
        if ch == '"':
            out.append("“" if before in " ([{-" else "”")
        elif ch == "'":
            out.append("‘" if before in " ([{-" else "’")
        else:
            out.append(ch)
    return "".join(out).replace("...", "…").replace("--", "—")


def capitals(text: str) -> str:
    """The text in capitals, leaving a letter whose capital lies outside the vocabulary (µ) as it is."""
    return "".join(u if len(u := ch.upper()) == 1 and u in CHARSET else ch for ch in text)


def period(rng: random.Random) -> str:
    """A reporting period as the column heads of financial statements print it."""
    year = rng.randint(1990, 2030)
    quarter, yy = rng.randint(1, 4), f"{year % 100:02d}"
    return rng.choice((f"Q{quarter}", f"Q{quarter} {year}", f"{quarter}Q{yy}", f"{rng.randint(1, 2)}H{yy}",
                       f"FY{year}", f"{year}e", f"{year}A", str(year)))


def short_crop(rng: random.Random) -> str:
    """Tiny regions: labels, a number, a cell, a letter; the model must not invent text around them."""
    kinds = (
        lambda: rng.choice(SHORT_CROPS),
        lambda: str(rng.randint(0, 999)),
        lambda: f"{rng.randint(1, 99)} {rng.choice('ABCDEFGH')}",
        lambda: rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
        lambda: value(rng),
        lambda: rng.choice(corpus.dictionary_words()),
        lambda: f"{rng.randint(1, 40)}.",
        lambda: f"Page {rng.randint(1, 30)}" + (f" of {rng.randint(30, 60)}" if rng.random() < 0.5 else ""),
        lambda: rng.choice(FIELD_LABELS) + ":",
        lambda: measurement(rng),
        lambda: period(rng),
    )
    return rng.choice(kinds)()


def invoice_line(rng: random.Random) -> list[str]:
    """Columns of one invoice row: description, quantity, unit price, amount (some omitted)."""
    qty = rng.randint(1, 12)
    unit = rng.uniform(0.5, 400)
    cols = [rng.choice(PRODUCTS)]
    if rng.random() < 0.7:
        cols.append(str(qty))
    if rng.random() < 0.6:
        cols.append(f"{unit:,.2f}")
    cols.append(f"{qty * unit:,.2f}")
    return cols


DOSAGE_FORMS = ("TABLETS", "TAB", "CAPSULES", "CAP", "SOLUTION", "SUSP", "CREAM", "OINTMENT", "INJ", "SYRUP",
                "PATCH", "DROPS", "POWDER", "KIT", "EA", "BOX", "CTN", "PK", "ROLL", "GAL", "LB", "FT")
STRENGTH_UNITS = ("MG", "MCG", "G", "ML", "MG/ML", "%", "IU", "OZ", "MM", "IN")


def catalog_line(rng: random.Random) -> list[str]:
    """Columns of a price list, pharmacy statement or parts catalogue: a code, an item named in capitals
    (made of dictionary words, so that the model reads letters instead of recalling a short list), a form and
    strength, then a count and one or more amounts. Scanned statements print these in capitals, where a model
    that only saw capitals in licence disclaimers wrote "LIABLE LICENSES" over the drug names."""
    words = corpus.dictionary_words()
    name = " ".join(next(w for w in iter(lambda: rng.choice(words), None) if "'" not in w)
                    for _ in range(rng.choice((1, 1, 2, 2, 3))))
    if rng.random() < 0.15:
        name += rng.choice(("(TM)", "(R)", " HCL", " ER", " XL", " SODIUM"))
    strength = f"{rng.choice((1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 0.5, 1.5, 35))}{rng.choice(STRENGTH_UNITS)}"
    item = f"{name} {rng.choice(DOSAGE_FORMS)} {strength}" if rng.random() < 0.7 else name
    code = rng.choice((
        lambda: f"{rng.randint(0, 99999):05d}-{rng.randint(0, 9999):04d}-{rng.randint(0, 99):02d}",
        lambda: f"{rng.randint(100000, 9999999)}",
        lambda: identifier(rng, 3),
        lambda: f"{rng.choice('ABCDEFGHJKLMNPRSTUVWXYZ')}{rng.randint(100, 99999)}",
    ))()
    money = currency(rng)
    amounts = [amount(rng, money, magnitude=rng.choice((10, 100, 1000)), decimals=2)
               for _ in range(rng.choice((1, 1, 2, 3, 5)))]
    # Code and item share the first column: typeset() gives every later column the widest one's width.
    cols = [(code + " " if rng.random() < 0.8 else "") + capitals(item)]
    if rng.random() < 0.7:
        cols.append(str(rng.choice((rng.randint(1, 30), rng.randint(30, 1000)))))
    return cols + amounts


RECEIPT_LABELS = ("Cashier", "Server", "Table", "Receipt", "Receipt No", "Bill No", "Inv No.", "Invoice No",
                  "Doc No", "Date", "Time", "Counter", "Terminal", "Member", "Pax", "Order No", "Tel", "Fax",
                  "GST ID", "GST Reg No", "Co. Reg No", "Tax ID", "Total", "Total Incl. GST@6%", "Total Excl. Tax",
                  "Rounding Adj", "Rounding", "Cash", "Change", "Tendered", "Card", "Discount", "Service Charge",
                  "Sub Total", "Total Qty", "Net Total", "Amount Due", "Tax @6%", "Points Earned")
RECEIPT_NOTES = ("Thank you, please come again", "Goods sold are not refundable", "Please keep this receipt",
                 "Prices include tax where applicable", "This is a computer generated receipt", "*** COPY ***",
                 "Thank You", "Have a nice day!", "Exchange within 7 days with receipt", "Tax Invoice",
                 "Simplified Tax Invoice", "Customer Copy", "Closed", "Change Due")


def _receipt_value(rng: random.Random, label: str) -> str:
    if label in ("Cashier", "Server", "Member"):
        return rng.choice((person(rng), rng.choice(FIRST_NAMES), rng.choice(FIRST_NAMES).upper()))
    if label in ("Table", "Pax", "Counter", "Terminal", "Total Qty", "Points Earned"):
        return str(rng.choice((rng.randint(1, 9), rng.randint(1, 99), rng.randint(100, 999))))
    if label == "Date":
        return rng.choice((date(rng, 0), date(rng, 1), date(rng, 9), date(rng, 2)))
    if label == "Time":
        return time_of_day(rng)
    if label.startswith("Rounding"):
        return f"{rng.choice(('', '-'))}0.0{rng.randint(1, 4)}"
    if label in ("Tel", "Fax"):
        return rng.choice((phone(rng), f"0{rng.randint(3, 9)}-{rng.randint(1000, 9999)} {rng.randint(1000, 9999)}"))
    if "ID" in label or "Reg" in label:
        return rng.choice((f"{rng.randint(0, 10 ** 12 - 1):012d}",
                           f"{rng.randint(100000, 999999)}-{rng.choice('ABKPTUVW')}", identifier(rng, 2)))
    if "No" in label or label in ("Receipt",):
        letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
        return rng.choice((f"{rng.choice(letters)}{rng.choice(letters)}{rng.randint(0, 10 ** 8 - 1):08d}",
                           f"{rng.choice(letters)}{rng.choice(letters)}{rng.randint(10, 99)}{rng.choice(letters)}"
                           f"{rng.randint(10, 99)}/{rng.randint(0, 9999):04d}",
                           str(rng.randint(1000, 9999999)), identifier(rng, 1)))
    return amount(rng, rng.choice((("", ""), ("", ""), ("RM", ""), ("$", ""))), magnitude=rng.choice((10, 100, 1000)),
                  decimals=2)


def receipt_field(rng: random.Random) -> str:
    """A till receipt's header or footer line: 'Cashier : Name', 'Total Incl. GST@6% : 45.60', two fields
    side by side, or a closing note; in mixed case or capitals, as receipt printers print either."""
    if rng.random() < 0.12:
        text = rng.choice(RECEIPT_NOTES)
    else:
        sep = rng.choice((" : ", ": ", ":", " :", " "))
        labels = rng.sample(RECEIPT_LABELS, rng.choice((1, 1, 1, 2)))
        text = "  ".join(f"{label}{sep}{_receipt_value(rng, label)}" for label in labels)
    return capitals(text) if rng.random() < 0.35 else text


def receipt_line(rng: random.Random) -> list[str]:
    item = rng.choice(RECEIPT_ITEMS)
    price = f"{rng.uniform(0.3, 60):.2f}"
    if rng.random() < 0.3:
        return [f"{rng.randint(2, 6)} @ {rng.uniform(0.3, 9):.2f}", price]
    return [item, price + rng.choice(("", "", " A", " F", " T"))]


def heading(rng: random.Random) -> str:
    words = rng.choice(HEADING_WORDS)
    if rng.random() < 0.5:
        words += " " + rng.choice(("of", "and", "for")) + " " + rng.choice([w for w in HEADING_WORDS if w != words])
    style = rng.random()
    if style < 0.3:
        return f"{rng.randint(1, 12)}. {words}"
    if style < 0.5:
        return f"{rng.randint(1, 9)}.{rng.randint(1, 9)} {words}"
    if style < 0.65:
        roman = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X")[rng.randrange(10)]
        return f"{rng.choice(('ARTICLE', 'Section', 'SECTION', 'Part', 'Chapter'))} {roman} — {words.upper() if rng.random() < 0.5 else words}"
    if style < 0.8:
        return words.upper()
    return words


LIST_STYLES = ("•", "-", "–", "*", "·", "1.", "1)", "(a)", "a)", "(i)")


def list_style(rng: random.Random) -> str:
    """One marker style, kept for every item of a list."""
    return rng.choice(LIST_STYLES)


def list_marker(style: str, index: int) -> str:
    letters = "abcdefghijklmnop"
    romans = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")
    if style == "1.":
        return f"{index + 1}."
    if style == "1)":
        return f"{index + 1})"
    if style == "(a)":
        return f"({letters[index % 16]})"
    if style == "a)":
        return f"{letters[index % 16]})"
    if style == "(i)":
        return f"({romans[index % 10]})"
    return style


def address_block(rng: random.Random) -> list[str]:
    lines = [rng.choice((person, company))(rng), street(rng), city_line(rng)]
    if rng.random() < 0.4:
        lines.append(rng.choice((phone, email))(rng))
    return lines


SENTENCES = (
    "Payment of {amount} is due on {date}.",
    "Please remit {amount} to the account below within 30 days.",
    "Thank you for your order of {date}.",
    "Dear {person},",
    "Sincerely, {person}",
    "We acknowledge receipt of your letter dated {date}.",
    "The total amount of {amount} includes VAT at {percent}.",
    "Invoice {id} was issued to {company} on {date}.",
    "This agreement is made on {date} between {company} and {person}.",
    "The term of this lease begins on {date} and ends on {date}.",
    "A late fee of {amount} will be charged after {date}.",
    "Contact {person} at {phone} or {email} for questions.",
    "Your account {id} shows a balance of {amount}.",
    "Revenue increased by {percent} compared with the prior year.",
    "Operating expenses were {amount} for the quarter ended {date}.",
    "Please quote reference {id} in all correspondence.",
    "The meeting will be held on {date} at {time}.",
    "Delivery is scheduled for {date} to {street}, {city}.",
    "Net income for the period amounted to {amount}.",
    "{company} reserves the right to amend these terms.",
    "Signed this day, {date}, by {person}.",
    "Shipping address: {street}, {city}.",
    "The deposit of {amount} is refundable until {date}.",
    "Approximately {percent} of respondents agreed with the proposal.",
)


def sentence(rng: random.Random) -> str:
    """A sentence of business correspondence with names, dates and amounts filled in."""
    fills = {"amount": amount, "date": date, "person": person, "percent": percent, "id": identifier,
             "company": company, "phone": phone, "email": email, "time": time_of_day, "street": street,
             "city": city_line}
    template = rng.choice(SENTENCES)
    out, rest = [], template
    while "{" in rest:
        head, _, tail = rest.partition("{")
        key, _, rest = tail.partition("}")
        out += [head, fills[key](rng)]
    return "".join(out) + rest
