#include "CGtkShims.h"

gulong gtk_chat_connect_simple(gpointer instance, const char *signal, GtkChatSimpleHandler handler,
                               gpointer user_data) {
  return g_signal_connect_data(instance, signal, G_CALLBACK(handler), user_data, NULL, 0);
}

gulong gtk_chat_connect_items_changed(GListModel *model, GtkChatItemsChangedHandler handler, gpointer user_data) {
  return g_signal_connect_data(model, "items-changed", G_CALLBACK(handler), user_data, NULL, 0);
}

gulong gtk_chat_connect_argument(gpointer instance, const char *signal, GtkChatArgumentHandler handler,
                                 gpointer user_data) {
  return g_signal_connect_data(instance, signal, G_CALLBACK(handler), user_data, NULL, 0);
}

GListModel *gtk_chat_list_model(gpointer instance) { return G_LIST_MODEL(instance); }

const char *gtk_chat_type_name(gpointer instance) { return G_OBJECT_TYPE_NAME(instance); }
