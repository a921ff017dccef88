#ifndef CGTK_SHIMS_H
#define CGTK_SHIMS_H

#include <gtk/gtk.h>

/// A signal handler that takes only the emitting instance and the user data ("clicked", "activate",
/// "destroy", "changed").
typedef void (*GtkChatSimpleHandler)(gpointer instance, gpointer user_data);

/// A handler of GListModel's "items-changed".
typedef void (*GtkChatItemsChangedHandler)(GListModel *model, guint position, guint removed, guint added,
                                           gpointer user_data);

/// g_signal_connect is a macro; Swift calls this instead.
gulong gtk_chat_connect_simple(gpointer instance, const char *signal, GtkChatSimpleHandler handler,
                               gpointer user_data);

/// Connects "items-changed" of a list model.
gulong gtk_chat_connect_items_changed(GListModel *model, GtkChatItemsChangedHandler handler, gpointer user_data);

/// A signal handler that takes the emitting instance, one pointer argument and the user data: a
/// GtkSignalListItemFactory's "setup", "bind", "unbind" and "teardown" (the list item), "notify::…" (the
/// GParamSpec).
typedef void (*GtkChatArgumentHandler)(gpointer instance, gpointer argument, gpointer user_data);

/// Connects a signal whose handler takes one pointer argument.
gulong gtk_chat_connect_argument(gpointer instance, const char *signal, GtkChatArgumentHandler handler,
                                 gpointer user_data);

/// G_LIST_MODEL() is a macro with a runtime type check; this does the same checked cast.
GListModel *gtk_chat_list_model(gpointer instance);

/// G_OBJECT_TYPE_NAME(): the class name of a GObject, e.g. the renderer GTK chose.
const char *gtk_chat_type_name(gpointer instance);

#endif
