// A <select data-submit-on-change> sends its form as soon as a choice is made (the language
// and currency switches). A script file rather than an onchange attribute, which the
// Content-Security-Policy forbids; without scripts the switches show a button instead.
document.addEventListener("change", (event) => {
  const field = event.target;
  if (field instanceof HTMLSelectElement && field.hasAttribute("data-submit-on-change")) {
    field.form.requestSubmit();
  }
});
