/*
 * view_i18n.h — how the views mark their words for translation (gettext,
 * text domain "sungka"; the catalogs are po/LANG.po, see po/CMakeLists.txt).
 * _("...") is a sentence translated where it is used; N_("...") marks one in
 * a table, translated with _() where it is shown; ngettext() chooses the
 * form for a count ("1 person is watching." / "3 people are watching.").
 * Command words the user types (ready, quit, chat, ...) and the names of
 * game kinds are never translated: a sentence that names one keeps it.
 */
#ifndef SUNGKA_VIEW_I18N_H
#define SUNGKA_VIEW_I18N_H

#include <libintl.h>

#define _(s) gettext(s)
#define N_(s) (s)

#endif /* SUNGKA_VIEW_I18N_H */
