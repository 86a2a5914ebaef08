// Marks table cells for the style sheet: numbers right-aligned, ⚠ highlighted, |z_paper| > 3 in
// red; and records on <body> how many images failed to load (data-broken-images), which the
// browser test reads.
(function () {
  for (const table of document.querySelectorAll("table")) {
    const heads = Array.from(table.querySelectorAll("thead th")).map((th) => th.textContent.trim());
    for (const row of table.querySelectorAll("tbody tr")) {
      Array.from(row.children).forEach((td, i) => {
        const s = td.textContent.trim();
        if (s.includes("\u26a0")) td.classList.add("warn");
        if (/^[-+\u2212]?(\d|\.\d|NaN$|inf$)/.test(s)) td.classList.add("num");
        if ((heads[i] || "").startsWith("z_paper") && Math.abs(parseFloat(s.replace("\u2212", "-"))) > 3) {
          td.classList.add("far");
        }
      });
    }
  }
  function countBroken() {
    const broken = Array.from(document.images).filter((img) => img.complete && img.naturalWidth === 0);
    document.body.dataset.brokenImages = String(broken.length);
    document.body.dataset.images = String(document.images.length);
  }
  window.addEventListener("load", countBroken);
})();
